"""The config of the learned package in one place, without torch: the schema of every config group (schema.py), a
field's rule declared with it (fields.py), the value sets the fields accept (vocabulary.py) and each hasValue
grounding's own config (groundings.py). Nothing here imports torch, LTNtorch or training code, so that checking a
config (and refusing a bad value) loads neither (tests/test_config_light.py; the `config-without-torch` contract)."""
