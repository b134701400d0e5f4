"""The private core: model values, ops, codec, schema, limits, the engine and JS string rules."""
