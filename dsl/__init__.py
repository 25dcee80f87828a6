"""The cardc language's data: grammar, effect catalogue and JSON Schemas (shipped inside the package as `cardc.dsl`)."""
