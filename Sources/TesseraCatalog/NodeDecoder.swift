import TesseraCore

extension NodeDeclaration {
    /// A node of this type with `parameters` set (the rest keep their defaults) and `inputs` connected.
    ///
    /// Swift writes a `Decodable` initializer for every node type that decodes each wrapper under its
    /// property's name; the decoder below hands it the configured wrappers. This is how the engine sets
    /// properties it only knows by name, without a line of code in the node.
    package func instantiate(parameters: [String: any ParameterValue], inputs: [String: NodeValue]) throws
        -> any ConfiguredNode
    {
        let type: any Node.Type
        switch maker {
        case .plugin(let make): return try make(parameters, inputs)
        case .type(let nodeType): type = nodeType
        }
        var fields: [String: any Sendable] = [:]
        for (name, prototype) in parameterFields {
            guard let value = parameters[name] else {
                fields[name] = prototype
                continue
            }
            guard let field = prototype.setting(value) else {
                throw NodeConfigurationError("\(op).\(name): a \(Swift.type(of: value)) does not fit the parameter")
            }
            fields[name] = field
        }
        for (name, prototype) in inputFields {
            guard let value = inputs[name] else {
                // Unconnected: an optional input takes nil; a required one stays unset (validation only).
                fields[name] = prototype.connecting(nil) ?? prototype
                continue
            }
            guard let field = prototype.connecting(value) else {
                throw NodeConfigurationError("\(op).\(name): \(value.type.phrase) does not fit the input")
            }
            fields[name] = field
        }
        return try type.init(from: FieldDecoder(fields: fields))
    }
}

/// A decoder whose keyed container returns prepared property-wrapper values by property name.
private struct FieldDecoder: Decoder {
    let fields: [String: any Sendable]
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container<Key>(fields: fields))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw NodeConfigurationError("a node's properties must be @Parameter or @Input wrappers")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw NodeConfigurationError("a node's properties must be @Parameter or @Input wrappers")
    }

    struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let fields: [String: any Sendable]
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let value = fields[key.stringValue] as? T else {
                throw NodeConfigurationError(
                    "property '\(key.stringValue)' is not a @Parameter or @Input wrapper (a node holds nothing else)")
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(Bool?.self, key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(String?.self, key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(Double?.self, key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(Float?.self, key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(Int?.self, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(Int8?.self, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(Int16?.self, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(Int32?.self, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(Int64?.self, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(UInt?.self, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(UInt8?.self, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(UInt16?.self, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(UInt32?.self, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(UInt64?.self, key) }

        /// Plain stored properties are not allowed in nodes: say so instead of decoding them.
        private func decode<T>(_ type: T?.Type, _ key: Key) throws -> T {
            throw NodeConfigurationError(
                "property '\(key.stringValue)' is not a @Parameter or @Input wrapper (a node holds nothing else)")
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            throw NodeConfigurationError("nodes have no nested properties")
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw NodeConfigurationError("nodes have no nested properties")
        }

        func superDecoder() throws -> any Decoder { FieldDecoder(fields: fields) }
        func superDecoder(forKey key: Key) throws -> any Decoder { FieldDecoder(fields: fields) }
    }
}
