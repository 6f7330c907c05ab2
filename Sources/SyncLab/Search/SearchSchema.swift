// The JSON Schema of a search file, so an editor checks one as it checks a scenario. Budgets
// and figure names come from the scenario schema beside it (`../scenario.schema.json`), so a
// constraint is checked exactly as a budget is. `Scenarios/search/search.schema.json` holds
// this text; a test keeps the two and the reader's keys in step.

extension SearchSpace {
    /// Keys a search file may set at its top level, in the order the schema lists them.
    public static let keys = ["$schema", "description", "base", "knobs", "constraints", "objective", "seeds", "maxFailingSeeds", "screen", "stopWhenClear"]

    public static let schema = """
    {
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "title": "SyncLab search",
      "description": "A space of designs for 'synclab search': a base scenario, knobs and their values, constraints and an objective (docs/search.md).",
      "type": "object",
      "additionalProperties": false,
      "required": ["base", "knobs", "objective"],
      "properties": {
        "$schema": { "type": "string" },
        "description": { "type": "string" },
        "base": { "type": "string", "minLength": 1, "description": "The base scenario, relative to this file." },
        "knobs": {
          "type": "array", "minItems": 1, "maxItems": 100,
          "items": {
            "type": "object", "additionalProperties": false, "required": ["key", "values"],
            "properties": {
              "key": { "type": "string", "description": "A key path as 'synclab sweep --vary' takes it: client.probes, server.fleet.servers." },
              "values": { "type": "array", "minItems": 1, "maxItems": 100000, "uniqueItems": true },
              "monotone": { "type": "boolean", "description": "At most one knob, with increasing numbers; a larger value never breaks a constraint a smaller one meets." }
            }
          }
        },
        "constraints": { "type": "array", "maxItems": 1000, "items": { "$ref": "../scenario.schema.json#/$defs/budget" }, "description": "Default: the base's budgets." },
        "objective": { "anyOf": [{ "const": "servers" }, { "$ref": "../scenario.schema.json#/$defs/figure" }], "description": "Minimised, the mean over seeds." },
        "seeds": { "type": "integer", "minimum": 1, "maximum": 1000 },
        "maxFailingSeeds": { "type": "integer", "minimum": 0, "maximum": 999, "description": "Below seeds." },
        "screen": {
          "type": "object", "additionalProperties": false, "required": ["players"],
          "properties": {
            "players": { "type": "integer", "minimum": 1 },
            "slack": { "type": "number", "minimum": 0, "maximum": 10 }
          }
        },
        "stopWhenClear": {
          "type": "object", "additionalProperties": false,
          "description": "Stop confirming a candidate once its pass is clear: after minimumSeeds, when the seeds not run would bring more failures than may with a chance of at most 1 - confidence (docs/search.md).",
          "properties": {
            "minimumSeeds": { "type": "integer", "minimum": 2, "maximum": 1000, "description": "Below seeds (default 5)." },
            "confidence": { "type": "number", "minimum": 0.5, "maximum": 0.999999, "description": "Default 0.95." }
          }
        }
      }
    }

    """
}
