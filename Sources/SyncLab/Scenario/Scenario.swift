import SyncLabKernel

/// Everything one run needs, decoded and validated from a scenario file (see `ScenarioLoader`).
public struct Scenario: Sendable {
    public var name: String
    public var description: String
    public var seed: UInt64
    /// Unix nanoseconds of true time zero: a real calendar instant, so whole-second truncation
    /// has a realistic phase.
    public var epochUnix: Int64
    /// The epoch as written in the scenario (for reports).
    public var epochText: String
    /// Simulated time measured, after `warmup` of unmeasured run-in.
    public var duration: Nanoseconds
    public var warmup: Nanoseconds
    public var positions: Int
    public var shelfLife: Distribution
    /// Item boundaries fall on multiples of this (1 s: PHP `time()`).
    public var scheduleResolution: Nanoseconds
    public var server: ServerConfig
    public var links: [LinkProfile]
    /// Request bytes the client uploads.
    public var requestBytes: Int
    public var devices: DeviceConfig
    public var client: ClientDesign
    public var population: PopulationConfig
    /// Interval between error samples of every viewing player.
    public var sampleEvery: Nanoseconds
    public var budgets: [Budget]
    /// Price models the report bills a month of this run's traffic under (`costs`).
    public var costModels: [CostModel]
    /// Whether summary.json and report.md show the estimators' ± bound coverage (`metrics.bounds`).
    public var reportBounds = true
    /// Whether reports show the per-fetch sync error (`metrics.fetchSyncError`); it is always
    /// measured, shown only on request so existing reports keep their bytes.
    public var reportsFetchSyncError = false
    /// At most this many players' errors are sampled (`metrics.samplePlayers`): every k-th player
    /// by index, k = ⌈players / samplePlayers⌉; nil samples every player. Reports say so.
    public var samplePlayers: Int? = nil
    /// Every how many players one has its errors sampled (1: all).
    public var sampleStride: Int {
        guard let cap = samplePlayers, cap < population.players else { return 1 }
        return (population.players + cap - 1) / cap
    }

    public init(name: String, description: String = "", seed: UInt64 = 1,
                epochUnix: Int64 = 1_328_724_000_371_000_000, epochText: String = "2012-02-08T18:00:00.371Z",
                duration: Nanoseconds = 3 * .hour, warmup: Nanoseconds = 30 * .minute, positions: Int = 12,
                shelfLife: Distribution = .uniform(min: 45e9, max: 240e9), scheduleResolution: Nanoseconds = .second,
                server: ServerConfig = ServerConfig(), links: [LinkProfile], requestBytes: Int = 400,
                devices: DeviceConfig = DeviceConfig(), client: ClientDesign = ClientDesign(),
                population: PopulationConfig, sampleEvery: Nanoseconds = 5 * .second, budgets: [Budget] = [],
                costModels: [CostModel] = []) {
        self.name = name
        self.description = description
        self.seed = seed
        self.epochUnix = epochUnix
        self.epochText = epochText
        self.duration = duration
        self.warmup = warmup
        self.positions = positions
        self.shelfLife = shelfLife
        self.scheduleResolution = scheduleResolution
        self.server = server
        self.links = links
        self.requestBytes = requestBytes
        self.devices = devices
        self.client = client
        self.population = population
        self.sampleEvery = sampleEvery
        self.budgets = budgets
        self.costModels = costModels
    }
}

/// A limit on one reported figure; a run reports each as pass or fail.
public struct Budget: Sendable, Equatable {
    public enum Comparison: String, Sendable { case atMost = "max", atLeast = "min" }
    public var name: String
    /// Key path into the summary, e.g. "transitionGapMs.p99" or "transitionsWithin500msShare".
    public var metric: String
    public var comparison: Comparison
    public var limit: Double
    public init(name: String, metric: String, comparison: Comparison, limit: Double) {
        self.name = name
        self.metric = metric
        self.comparison = comparison
        self.limit = limit
    }
    public func holds(_ value: Double) -> Bool {
        comparison == .atMost ? value <= limit : value >= limit
    }
}
