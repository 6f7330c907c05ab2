/// Seeded randomness of our own.
///
/// The generator is SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): the state is one 64-bit counter advanced by the golden gamma
/// 0x9E3779B97F4A7C15, and each output is the counter passed through the MurmurHash3-style
/// finaliser below. We own it because the standard library's generators may change between
/// releases, and because eight bytes of state per stream let a million clients each carry their
/// own independent streams.
///
/// Streams are keyed, not sequential: `RandomStream(seed:, purpose:, entity:)` derives its start
/// state by hashing the scenario seed, a purpose tag and an entity index, so a client's draws do
/// not change when another client is added or when a design elsewhere draws more often
/// (common random numbers between design variants).
public struct RandomStream: Sendable, Equatable {
    public var state: UInt64

    @inlinable public init(state: UInt64) { self.state = state }

    /// A stream for one entity and one purpose under one scenario seed.
    public init(seed: UInt64, purpose: StreamPurpose, entity: UInt64 = 0) {
        let a = RandomStream.mix(seed &+ 0x9E37_79B9_7F4A_7C15)
        let b = RandomStream.mix(a ^ (purpose.rawValue &* 0xD1B5_4A32_D192_ED03))
        state = RandomStream.mix(b ^ (entity &* 0xABC9_8388_FB8B_AC03 &+ 0x8CB9_2BA7_2F3D_8DD7))
    }

    /// A stream of its own for a test or a one-off draw: `seed` under purpose 0, entity 0. A
    /// run's streams are keyed by what they are for (`init(seed:purpose:entity:)`).
    public init(seed: UInt64) { self.init(seed: seed, purpose: StreamPurpose(rawValue: 0)) }

    /// The SplitMix64 output function.
    @inlinable public static func mix(_ z0: UInt64) -> UInt64 {
        var z = z0
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inlinable public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return RandomStream.mix(state)
    }

    /// Uniform in [0, 1) with 53 random bits.
    @inlinable public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in (0, 1]: safe to take the logarithm of.
    @inlinable public mutating func unitOpenBelow() -> Double {
        Double((next() >> 11) + 1) * 0x1.0p-53
    }

    /// Uniform integer in [0, bound) without modulo bias (Lemire's multiply-shift with rejection).
    @inlinable public mutating func below(_ bound: UInt64) -> UInt64 {
        precondition(bound > 0)
        var m = next().multipliedFullWidth(by: bound)
        if m.low < bound {
            let threshold = (0 &- bound) % bound
            while m.low < threshold { m = next().multipliedFullWidth(by: bound) }
        }
        return m.high
    }

    /// True with probability `p`.
    @inlinable public mutating func bernoulli(_ p: Double) -> Bool { p > 0 && unit() < p }
}

/// What a stream is for. Distinct purposes give independent streams for the same entity.
public struct StreamPurpose: RawRepresentable, Sendable, Hashable {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// A purpose from a short ASCII tag, e.g. `StreamPurpose("network")`. Stable across versions.
    public init(_ tag: String) {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325   // FNV-1a over the UTF-8 bytes
        for byte in tag.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        rawValue = h
    }
}
