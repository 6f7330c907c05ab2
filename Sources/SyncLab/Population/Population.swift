import SyncLabKernel

/// How players use the app, and the release spike.
///
/// A player comes online for a *visit* (the app cold-starts and loads the store), views the
/// Store for a few sessions separated by short breaks, and between visits is offline (the app is
/// not running). In a break the player usually locks the phone; "a few minutes" later the device
/// enters deep sleep, where the suspending clock stops. When a new item is released "typically we
/// get 50x more users online": at the release instant, enough offline players start a visit
/// within the release window to multiply the players online by `multiplier`.
public struct PopulationConfig: Sendable {
    public var players: Int
    /// Time offline between visits.
    public var visitGap: Distribution
    /// Store-viewing sessions per visit (rounded to a whole number, at least 1).
    public var sessionsPerVisit: Distribution
    /// How long one viewing session lasts.
    public var viewing: Distribution
    /// A break between sessions of one visit.
    public var breakDuration: Distribution
    /// Share of breaks in which the player locks the phone (else stays in other apps, awake).
    public var lockShare: Double
    /// Delay from screen off to deep sleep.
    public var sleepDelay: Distribution
    public var release: Release?

    public struct Release: Sendable {
        public var at: SimTime
        public var multiplier: Double
        public var window: Nanoseconds
        public init(at: SimTime, multiplier: Double, window: Nanoseconds) {
            self.at = at
            self.multiplier = multiplier
            self.window = window
        }
    }

    public init(players: Int, visitGap: Distribution = .exponential(mean: 6 * 3.6e12),
                sessionsPerVisit: Distribution = .geometric(mean: 3), viewing: Distribution = .lognormal(median: 9e10, sigma: 0.8),
                breakDuration: Distribution = .lognormal(median: 2.4e11, sigma: 0.9), lockShare: Double = 0.85,
                sleepDelay: Distribution = .uniform(min: 1.2e11, max: 3e11), release: Release? = nil) {
        self.players = players
        self.visitGap = visitGap
        self.sessionsPerVisit = sessionsPerVisit
        self.viewing = viewing
        self.breakDuration = breakDuration
        self.lockShare = lockShare
        self.sleepDelay = sleepDelay
        self.release = release
    }

    /// Sessions in one visit.
    public func sessions(_ rng: inout RandomStream) -> Int {
        let n = sessionsPerVisit.sample(&rng).rounded()
        return n >= 1 ? Int(min(n, 10_000)) : 1
    }
}

/// Per-device hardware and settings, drawn once per device.
public struct DeviceConfig: Sendable {
    /// Oscillator drift, parts per million.
    public var driftPPM: Distribution
    /// Wall clock minus true time.
    public var wallClockOffset: Distribution
    /// How long the device has been up when the run (warm-up included) starts.
    public var uptimeAtStart: Distribution
    /// Reboots, app kills, wall-clock changes and tampering (all off by default).
    public var events = DeviceEventsConfig()
    public init(driftPPM: Distribution = .normal(mean: 0, sd: 20),
                wallClockOffset: Distribution = .normal(mean: 0, sd: 5e7),
                uptimeAtStart: Distribution = .uniform(min: 3.6e12, max: 6.048e14)) {
        self.driftPPM = driftPPM
        self.wallClockOffset = wallClockOffset
        self.uptimeAtStart = uptimeAtStart
    }
}

/// When the client takes the sync's last clock reading.
///
/// The seeds read the clock when the whole response has arrived, so the file's transfer time
/// counts as path delay — on a slow link most of the round trip, and all of it on the way down,
/// which no symmetric estimator can take back. Reading it when the response headers arrive
/// (URLSession's `didReceive response`), with the server's stamps in those headers, leaves only
/// the headers' few hundred bytes.
public enum SyncReadingInstant: String, Sendable, CaseIterable {
    case downloadComplete = "download-complete"
    case responseHeaders = "response-headers"
}

/// The client design under test: every part a named plug-in.
public struct ClientDesign: Sendable {
    /// The clock the client measures intervals and computes displayed time with.
    public var clock: any DeviceClock
    public var estimator: any SyncEstimator
    public var tick: any TickPolicy
    public var refetch: any RefetchPolicy
    public var retry: any RetryPolicy
    /// Requests per sync, back to back; the sync uses the one with the smallest round trip.
    public var probes: Int
    /// Frequency correction from successive syncs (nil: none).
    public var driftCorrection: DriftCorrection?
    /// The oscillator drift the client's ± bound allows for, ppm.
    public var maxDriftPPM: Double
    /// Which arrival the client reads its clock at for the sync (the seeds: download complete).
    public var syncReading: SyncReadingInstant = .downloadComplete
    /// Whether the last sync survives the app's termination (what Kronos keeps in the app's
    /// defaults): a cold start restores it if the device has not rebooted and its wall clock
    /// has not been set since (docs/lifecycle.md). Off: every app start begins without a sync.
    public var persistSync = false
    /// Where the sync's probes go: the store file (the seeds) or a light time endpoint followed
    /// by one store fetch (`ProbeTarget`).
    public var probeTarget = ProbeTarget.store
    /// When set, a player with nothing current to show (no sync yet, or a file that no longer
    /// covers the time it would show) shows the store from the first probe of a round whose ±
    /// bound (the estimator's `halfWidth`, half the round trip and the resolutions for NTP's
    /// exchange) is at most this many ns, with that probe's own estimate, and takes the round's
    /// estimate when the last probe is answered. nil (the default): it waits for the round.
    /// Needs the probes to fetch the store (`probeTarget` "store"): an endpoint's answer has no file.
    public var showFirstAnswerWithin: Nanoseconds? = nil
    /// When set, a round whose estimate claims a ± bound wider than this many ns is not used, as
    /// RFC 5905 drops a server whose distance passes its threshold (MAXDIST, 1 s): the player
    /// keeps what it had (or stays bare), the estimator's memory is left as it was, and the retry
    /// policy sends the next round as after a failure. nil (the default): every round is used.
    public var maxSyncBound: Nanoseconds? = nil
    public init(clock: any DeviceClock = SuspendingDeviceClock(), estimator: any SyncEstimator = UploadCompleteEstimator(),
                tick: any TickPolicy = TimerTick(), refetch: any RefetchPolicy = UniformWindowRefetch(),
                retry: any RetryPolicy = FixedIntervalRetry(), probes: Int = 1,
                driftCorrection: DriftCorrection? = nil, maxDriftPPM: Double = 100) {
        self.clock = clock
        self.estimator = estimator
        self.tick = tick
        self.refetch = refetch
        self.retry = retry
        self.probes = probes
        self.driftCorrection = driftCorrection
        self.maxDriftPPM = maxDriftPPM
    }
}
