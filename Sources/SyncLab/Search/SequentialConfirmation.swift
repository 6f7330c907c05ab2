import SyncLabKernel

/// When a search may stop confirming a candidate before its last seed: once its pass is clear
/// at a stated confidence (a search file's `stopWhenClear`).
///
/// A miss is already clear as soon as more seeds fail than may (`SearchPlan`); this is the other
/// direction. After each full-size seed, once at least `minimumSeeds` have run and no more of
/// them fail than may, every constraint's relative margin over the seeds run so far (k of them,
/// mean m̄, sample standard deviation s) predicts a further seed's margin by the Student t
/// prediction interval for one new draw of a normal sample: m̄ + s·√(1 + 1/k)·T with k − 1
/// degrees of freedom. The chance a further seed misses the constraint is then
/// F(−m̄ / (s·√(1 + 1/k))), F the t distribution's CDF, and the chance it misses any constraint
/// at most q, the sum over constraints (the union bound). The pass is clear when the remaining r
/// seeds are unlikely to bring more failures than may still come: P(Binomial(r, q) > allowed
/// − failing so far) ≤ 1 − `confidence`.
///
/// What it assumes: a figure's margin varies across seeds about normally (a sum of many
/// players' errors, shares over many changes), and seeds are exchangeable (they are: each is a
/// fresh key for every random stream). What it can miss: a design whose margins are skewed
/// across seeds, a rare seed far worse than the rest. With `minimumSeeds` 5 and confidence 0.95,
/// of 20 seeds, a candidate whose worst margin sits 6 sample standard deviations above its limit
/// stops after 5 seeds, 4 deviations after 8, 3 after 13 and 2 after 19
/// (`SequentialConfirmationTests`).
public struct SequentialConfirmation: Sendable, Equatable {
    /// Seeds every candidate runs before its pass may be called clear (at least 2: one seed has
    /// no spread).
    public var minimumSeeds: Int
    /// How sure the pass must be: 1 − the chance the seeds not run would have failed it.
    public var confidence: Double

    public static let defaultMinimumSeeds = 5
    public static let defaultConfidence = 0.95
    /// The most confidence asked for: closer to 1 a t tail this far out is never reached.
    public static let maximumConfidence = 0.999999

    public init(minimumSeeds: Int = defaultMinimumSeeds, confidence: Double = defaultConfidence) {
        precondition(minimumSeeds >= 2 && confidence >= 0.5 && confidence <= Self.maximumConfidence)
        self.minimumSeeds = minimumSeeds
        self.confidence = confidence
    }

    /// Whether the pass is clear after the seeds run so far. `margins[j]` holds constraint j's
    /// relative margin on each seed run (`SearchPlan.margin`; a figure not measured is −∞);
    /// `failing` of them failed, `allowed` may, `remaining` seeds are not yet run.
    public func passIsClear(margins: [[Double]], failing: Int, allowed: Int, remaining: Int) -> Bool {
        let k = margins.first?.count ?? 0
        guard k >= minimumSeeds, failing <= allowed else { return false }
        if remaining <= 0 { return true }
        var q = 0.0
        for m in margins { q += Self.missChance(m) }
        return Self.moreFailuresChance(remaining: remaining, missChance: min(q, 1), allowedMore: allowed - failing)
            <= 1 - confidence
    }

    /// The predictive chance a further seed's margin is below 0, from `margins` of the seeds run
    /// (at least 2): Student t with k − 1 degrees of freedom. Margins all alike: 0 when they hold
    /// (≥ 0), else 1; any margin not finite: 1 (nothing predicts it).
    public static func missChance(_ margins: [Double]) -> Double {
        let k = margins.count
        precondition(k >= 2)
        guard margins.allSatisfy(\.isFinite) else { return 1 }
        let mean = margins.reduce(0, +) / Double(k)
        var squares = 0.0
        for m in margins { squares += (m - mean) * (m - mean) }
        let sd = (squares / Double(k - 1)).squareRoot()
        guard sd > 0 else { return mean >= 0 ? 0 : 1 }
        return StudentT.cdf(-mean / (sd * (1 + 1 / Double(k)).squareRoot()), degrees: k - 1)
    }

    /// P(Binomial(remaining, missChance) > allowedMore): the chance the seeds not run bring
    /// more failures than may still come.
    public static func moreFailuresChance(remaining r: Int, missChance q: Double, allowedMore a: Int) -> Double {
        guard a < r else { return 0 }
        if q <= 0 { return 0 }
        if q >= 1 { return 1 }
        // Σ_{i ≤ a} C(r, i) qⁱ (1 − q)^(r − i), each term from the one before, by products only.
        var term = 1.0
        for _ in 0..<r { term *= 1 - q }
        var atMost = term
        if a > 0 {
            for i in 1...a {
                term *= Double(r - i + 1) / Double(i) * q / (1 - q)
                atMost += term
            }
        }
        return max(0, 1 - atMost)
    }
}

/// Student's t distribution with a whole number of degrees of freedom, by the closed forms of
/// its CDF in θ = atan(t/√ν) (Abramowitz and Stegun 26.7.3–4): a finite sum of powers of cos θ,
/// plus θ itself for odd ν. Only +, −, ×, ÷ and √ (and `DeterministicAngle.atan`, built of
/// them), so every IEEE machine gives the same bits.
public enum StudentT {
    /// P(T ≤ t) for ν = `degrees` ≥ 1.
    public static func cdf(_ t: Double, degrees nu: Int) -> Double {
        precondition(nu >= 1)
        if t.isNaN { return .nan }
        if t == .infinity { return 1 }
        if t == -.infinity { return 0 }
        let n = Double(nu)
        let x = abs(t)
        // cos²θ = ν/(ν + t²), sin θ = |t|/√(ν + t²).
        let cos2 = n / (n + x * x)
        let sin = x / (n + x * x).squareRoot()
        // A(t|ν) = P(|T| < |t|).
        var within: Double
        if nu % 2 == 0 {
            // sin θ · (1 + ½cos²θ + (1·3)/(2·4)cos⁴θ + … up to cos^(ν−2)θ).
            var term = 1.0, sum = 1.0
            var j = 2
            while j <= nu - 2 {
                term *= cos2 * Double(j - 1) / Double(j)
                sum += term
                j += 2
            }
            within = sin * sum
        } else {
            // (2/π)(θ + sin θ cos θ (1 + (2/3)cos²θ + (2·4)/(3·5)cos⁴θ + … up to cos^(ν−3)θ)).
            let theta = DeterministicAngle.atan(x / n.squareRoot())
            var inner = 0.0
            if nu > 1 {
                var term = 1.0, sum = 1.0
                var j = 3
                while j <= nu - 2 {
                    term *= cos2 * Double(j - 1) / Double(j)
                    sum += term
                    j += 2
                }
                inner = sin * cos2.squareRoot() * sum
            }
            within = 2 / Double.pi * (theta + inner)
        }
        within = min(max(within, 0), 1)
        return t >= 0 ? 0.5 + within / 2 : (1 - within) / 2
    }
}

/// The arc tangent from IEEE's exact operations only, so it gives the same bits on any machine
/// (the C library's `atan` may differ in the last bit from one system to another).
public enum DeterministicAngle {
    /// atan(x), to within a few units in the last place.
    public static func atan(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x < 0 { return -atan(-x) }
        if x == .infinity { return Double.pi / 2 }
        if x > 1 { return Double.pi / 2 - atan(1 / x) }
        // Halve the angle twice, atan(x) = 2·atan(x / (1 + √(1 + x²))), to |x| ≤ tan(π/16) ≈ 0.199,
        // where the odd series x − x³/3 + x⁵/5 − … gains 3.2 bits a term.
        var y = x
        for _ in 0..<2 { y = y / (1 + (1 + y * y).squareRoot()) }
        let y2 = y * y
        var power = y, sum = 0.0
        var k = 1
        while k < 60 {
            let term = power / Double(k)
            let next = (k / 2) % 2 == 0 ? sum + term : sum - term
            if next == sum { break }
            sum = next
            power *= y2
            k += 2
        }
        return 4 * sum
    }
}
