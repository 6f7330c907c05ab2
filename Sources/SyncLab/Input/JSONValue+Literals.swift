// JSON written as Swift literals, for the JSON Schema fragments plug-ins declare:
// `["type": "integer", "minimum": 1, "maximum": 64]`. Object literals keep their written key
// order, like parsed objects.

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value), literal: "\(value)") }
    public init(floatLiteral value: Double) { self = .number(value, literal: "\(value)") }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { JSONMember(key: $0.0, value: $0.1) })
    }

    /// A whole number, written without a fraction: `JSONValue.integer(64)`.
    public static func integer<I: BinaryInteger>(_ value: I) -> JSONValue { .number(Double(value), literal: "\(value)") }
}
