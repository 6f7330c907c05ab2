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
    /// exponential {mean}, pareto {scale, shape}, geometric {mean}, empirical {samples: [...]},
    /// lognormal-mixture {body: {median, sigma}, tail: {share, median, sigma}, optional outage:
    /// {share, median, sigma}} (durations only).
    ///
    /// `bounds` limits the location parameters (value, min, max, mean, median, scale, samples)
    /// and how far the most extreme draw the generator can produce may reach, so a scenario
    /// cannot ask for a week-long network delay or a draw that overflows the world's clock.
    public func distribution(_ q: Quantity, _ bounds: Bounds = Bounds()) throws -> Distribution {
        let result: Distribution
        if case .object = value, value["trace"] != nil {
            result = try traceDistribution(q, bounds)        // LatencyTrace.swift
        } else if case .object = value {
            result = try distributionObject(q, bounds)
        } else {
            result = .constant(try check(quantity(q), q, bounds))
        }
        try checkExtremes(result, q, bounds)
        return result
    }

    private func distributionObject(_ q: Quantity, _ bounds: Bounds) throws -> Distribution {
        let kindNode = try required("kind")
        let kind = try kindNode.string()
        /// A location parameter: read with its unit and checked against the bounds.
        func location(_ key: String) throws -> (InputNode, Double) {
            let node = try required(key)
            return (node, try node.check(node.quantity(q), q, bounds))
        }
        let result: Distribution
        switch kind {
        case "constant":
            result = .constant(try location("value").1)
        case "uniform":
            let (loNode, lo) = try location("min")
            let (hiNode, hi) = try location("max")
            guard lo <= hi else {
                throw hiNode.error("must be at least min (\(InputNode.describeScalar(loNode.value))); got \(InputNode.describeScalar(hiNode.value))")
            }
            result = .uniform(min: lo, max: hi)
        case "normal":
            let (_, mean) = try location("mean")
            let sdNode = try required("sd")
            let sd = try sdNode.quantity(q)
            guard sd >= 0 else { throw sdNode.error("must not be negative; got \(InputNode.describeScalar(sdNode.value))") }
            _ = try sdNode.check(sd, q, Bounds(most: bounds.spreadMost ?? bounds.most))
            result = .normal(mean: mean, sd: sd)
        case "lognormal":
            let (medianNode, median) = try location("median")
            guard median > 0 else { throw medianNode.error("must be greater than zero; got \(InputNode.describeScalar(medianNode.value))") }
            let sigmaNode = try required("sigma")
            let sigma = try sigmaNode.double()
            guard sigma >= 0 && sigma <= 5 else {
                throw sigmaNode.error("must be between 0 and 5; got \(InputNode.describeScalar(sigmaNode.value))")
            }
            result = .lognormal(median: median, sigma: sigma)
        case "exponential":
            let (meanNode, mean) = try location("mean")
            guard mean > 0 else { throw meanNode.error("must be greater than zero; got \(InputNode.describeScalar(meanNode.value))") }
            result = .exponential(mean: mean)
        case "pareto":
            let (scaleNode, scale) = try location("scale")
            guard scale > 0 else { throw scaleNode.error("must be greater than zero; got \(InputNode.describeScalar(scaleNode.value))") }
            let shapeNode = try required("shape")
            let shape = try shapeNode.double()
            guard shape > 0 else { throw shapeNode.error("must be greater than zero; got \(InputNode.describeScalar(shapeNode.value))") }
            if bounds.finiteMean && shape <= 1 {
                throw shapeNode.error("must be greater than 1 so that the mean is finite; got \(InputNode.describeScalar(shapeNode.value))")
            }
            result = .pareto(scale: scale, shape: shape)
        case "geometric":
            guard q == .number else {
                throw kindNode.error("'geometric' draws whole counts (1, 2, 3, …); it fits counts such as population.sessionsPerVisit, not a \(q == .duration ? "duration" : "rate")")
            }
            let (meanNode, mean) = try location("mean")
            guard mean >= 1 else { throw meanNode.error("must be at least 1; got \(InputNode.describeScalar(meanNode.value))") }
            result = .geometric(mean: mean)
        case "lognormal-mixture":
            guard q == .duration else {
                throw kindNode.error("'lognormal-mixture' models delays with a tail; it fits a duration such as a link's uplink, not a \(q == .rate ? "rate" : "plain number")")
            }
            result = .lognormalMixture(try lognormalMixture(bounds))
        case "empirical":
            let samplesNode = try required("samples")
            let elements = try samplesNode.elements()
            guard !elements.isEmpty else { throw samplesNode.error("needs at least one sample; got an empty array") }
            guard elements.count <= 1_000_000 else {
                throw samplesNode.error("has \(elements.count) samples; at most 1000000 are allowed")
            }
            result = .empirical(try elements.map { try $0.check($0.quantity(q), q, bounds) })
        default:
            let kinds = ["constant", "uniform", "normal", "lognormal", "exponential", "pareto", "geometric", "empirical", "lognormal-mixture"]
            throw kindNode.error("unknown distribution '\(kind)'; expected one of \(kinds.joined(separator: ", "))" + NearMiss.hint(for: kind, among: kinds))
        }
        try rejectUnknownKeys()
        return result
    }

    /// The body and tail of a `lognormal-mixture`: each a lognormal {median, sigma}, the tail with
    /// its `share` of draws. The tail is the minority (share at most 0.5) and the slower part (its
    /// median at least the body's), so "body" and "tail" mean what they say.
    private func lognormalMixture(_ bounds: Bounds) throws -> LognormalMixture {
        func lognormal(_ node: InputNode) throws -> (median: Double, sigma: Double) {
            try node.expectObject()
            let medianNode = try node.required("median")
            let median = try medianNode.check(medianNode.quantity(.duration), .duration, bounds)
            guard median > 0 else { throw medianNode.error("must be greater than zero; got \(InputNode.describeScalar(medianNode.value))") }
            let sigmaNode = try node.required("sigma")
            let sigma = try sigmaNode.double()
            guard sigma >= 0 && sigma <= 5 else {
                throw sigmaNode.error("must be between 0 and 5; got \(InputNode.describeScalar(sigmaNode.value))")
            }
            return (median, sigma)
        }
        let bodyNode = try required("body")
        let body = try lognormal(bodyNode)
        try bodyNode.rejectUnknownKeys()
        let tailNode = try required("tail")
        try tailNode.expectObject()
        let shareNode = try tailNode.required("share")
        let share = try shareNode.probability()
        guard share <= 0.5 else {
            throw shareNode.error("must be at most 0.5 (the tail is the smaller part); got \(InputNode.describeScalar(shareNode.value))")
        }
        let tail = try lognormal(tailNode)
        guard tail.median >= body.median else {
            throw tailNode.child("median")!.error("must be at least the body's median (\(InputNode.describeScalar(bodyNode.child("median")!.value))): "
                + "the tail is the slower part; got \(InputNode.describeScalar(tailNode.child("median")!.value))")
        }
        try tailNode.rejectUnknownKeys()
        // An optional third part, the outage: slower than the tail, and with it still the minority.
        guard let outageNode = child("outage") else {
            return LognormalMixture(bodyMedian: body.median, bodySigma: body.sigma, tailShare: share,
                                    tailMedian: tail.median, tailSigma: tail.sigma)
        }
        try outageNode.expectObject()
        let outageShareNode = try outageNode.required("share")
        let outageShare = try outageShareNode.probability()
        guard share + outageShare <= 0.5 else {
            throw outageShareNode.error("with the tail's share (\(InputNode.describeScalar(shareNode.value))) must be at most 0.5 "
                + "(the body is the larger part); got \(InputNode.describeScalar(outageShareNode.value))")
        }
        let outage = try lognormal(outageNode)
        guard outage.median >= tail.median else {
            throw outageNode.child("median")!.error("must be at least the tail's median (\(InputNode.describeScalar(tailNode.child("median")!.value))): "
                + "the outage is the slowest part; got \(InputNode.describeScalar(outageNode.child("median")!.value))")
        }
        try outageNode.rejectUnknownKeys()
        return LognormalMixture(bodyMedian: body.median, bodySigma: body.sigma, tailShare: share, tailMedian: tail.median,
                                tailSigma: tail.sigma, outageShare: outageShare, outageMedian: outage.median, outageSigma: outage.sigma)
    }

    /// Refuses a distribution whose most extreme draw leaves `bounds.extreme`.
    private func checkExtremes(_ d: Distribution, _ q: Quantity, _ bounds: Bounds) throws(InputError) {
        guard let limit = bounds.extreme else { return }
        let (lower, upper) = d.drawRange
        // Negative duration draws are clamped to zero by the sampler: only the top matters.
        let low = q == .duration ? -Double.infinity : -limit
        guard !(lower >= low && upper <= limit) else { return }
        let reach = upper > limit || upper.isNaN
            ? "values up to \(bounds.describe(upper, q))" : "values down to \(bounds.describe(lower, q))"
        let range = q == .duration ? "under \(bounds.describe(limit, q))" : "within ±\(bounds.describe(limit, q))"
        throw error("\(d.describe(q, unit: bounds.numberUnit)) can draw \(reach) at the random generator's extremes; "
            + "every draw must stay \(range)" + d.extremeHint(limit: limit, q, unit: bounds.numberUnit))
    }

    /// A distribution of durations that may be negative (clock offsets): constant, uniform or
    /// normal {mean, sd}, with `bounds` on the magnitude of its location and on its sd.
    func signedDistribution(_ bounds: Bounds = Bounds()) throws -> Distribution {
        let magnitude = Bounds(least: bounds.most.map { -$0 }, most: bounds.most)
        func signed(_ node: InputNode) throws -> Double {
            try node.check(Double(try node.duration()), .duration, magnitude)
        }
        guard case .object = value else { return .constant(try signed(self)) }
        let kindNode = try required("kind")
        let kind = try kindNode.string()
        let result: Distribution
        switch kind {
        case "normal":
            let mean = try signed(try required("mean"))
            let sdNode = try required("sd")
            let sd = try sdNode.check(Double(try sdNode.nonNegativeDuration()), .duration,
                                      Bounds(most: bounds.spreadMost ?? bounds.most))
            result = .normal(mean: mean, sd: sd)
        case "uniform":
            let loNode = try required("min")
            let lo = try signed(loNode)
            let hiNode = try required("max")
            let hi = try signed(hiNode)
            guard lo <= hi else {
                throw hiNode.error("must be at least min (\(InputNode.describeScalar(loNode.value))); got \(InputNode.describeScalar(hiNode.value))")
            }
            result = .uniform(min: lo, max: hi)
        case "constant":
            result = .constant(try signed(try required("value")))
        default:
            throw kindNode.error("unknown distribution '\(kind)' for an offset; expected constant, uniform or normal"
                + NearMiss.hint(for: kind, among: ["constant", "uniform", "normal"]))
        }
        try rejectUnknownKeys()
        return result
    }
}
