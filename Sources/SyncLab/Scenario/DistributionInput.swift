import SyncLabKernel

/// What the numbers of a distribution measure, so each parameter is read with the right unit.
public enum Quantity: Sendable {
    /// Durations with units ("40ms"), in nanoseconds; never negative.
    case duration
    /// Data rates with units ("2MB/s"), in bytes per second; positive.
    case rate
    /// Plain numbers (parts per million, counts).
    case number
}

extension InputNode {
    /// One value of `quantity`, in base units.
    func quantity(_ q: Quantity) throws -> Double {
        switch q {
        case .duration: return Double(try nonNegativeDuration())
        case .rate: return try rate()
        case .number: return try double()
        }
    }

    /// A distribution: either a single value (a constant) or an object with a `kind`:
    /// constant {value}, uniform {min, max}, normal {mean, sd}, lognormal {median, sigma},
    /// exponential {mean}, pareto {scale, shape}, geometric {mean}, empirical {samples: [...]}.
    public func distribution(_ q: Quantity) throws -> Distribution {
        guard case .object = value else { return .constant(try quantity(q)) }
        let kind = try required("kind").string()
        let result: Distribution
        switch kind {
        case "constant":
            result = .constant(try required("value").quantity(q))
        case "uniform":
            let lo = try required("min").quantity(q)
            let hiNode = try required("max")
            let hi = try hiNode.quantity(q)
            guard lo <= hi else { throw hiNode.error("must be at least min") }
            result = .uniform(min: lo, max: hi)
        case "normal":
            let mean = try required("mean").quantity(q == .rate ? .rate : (q == .duration ? .duration : .number))
            let sdNode = try required("sd")
            let sd = try sdNode.quantity(q == .rate ? .rate : (q == .duration ? .duration : .number))
            guard sd >= 0 else { throw sdNode.error("must not be negative") }
            result = .normal(mean: mean, sd: sd)
        case "lognormal":
            let medianNode = try required("median")
            let median = try medianNode.quantity(q)
            guard median > 0 else { throw medianNode.error("must be greater than zero") }
            let sigmaNode = try required("sigma")
            let sigma = try sigmaNode.double()
            guard sigma >= 0 && sigma <= 5 else { throw sigmaNode.error("must be between 0 and 5") }
            result = .lognormal(median: median, sigma: sigma)
        case "exponential":
            let meanNode = try required("mean")
            let mean = try meanNode.quantity(q)
            guard mean > 0 else { throw meanNode.error("must be greater than zero") }
            result = .exponential(mean: mean)
        case "pareto":
            let scaleNode = try required("scale")
            let scale = try scaleNode.quantity(q)
            guard scale > 0 else { throw scaleNode.error("must be greater than zero") }
            let shapeNode = try required("shape")
            let shape = try shapeNode.double()
            guard shape > 0 else { throw shapeNode.error("must be greater than zero") }
            result = .pareto(scale: scale, shape: shape)
        case "geometric":
            let meanNode = try required("mean")
            let mean = try meanNode.double()
            guard mean >= 1 else { throw meanNode.error("must be at least 1") }
            result = .geometric(mean: mean)
        case "empirical":
            let samples = try required("samples").elements().map { try $0.quantity(q) }
            guard !samples.isEmpty else { throw try required("samples").error("needs at least one sample") }
            result = .empirical(samples)
        default:
            throw try required("kind").error(
                "unknown distribution '\(kind)'; expected one of constant, uniform, normal, lognormal, exponential, pareto, geometric, empirical")
        }
        try rejectUnknownKeys()
        return result
    }
}
