import SyncLabKernel

/// The server as the world runs it: the store and every file of the run (`ServerTimeline`), how
/// far its cron jobs have got, and the opt-in models that make requests wait (serving models,
/// the original plan's database).
struct ServerSide {
    let store: StoreServer
    let timeline: ServerTimeline
    /// The version served now, and the generation runs done so far.
    var liveFile = 0
    var cronRunsDone = 0
    var serving: ServingState?
    var database: DatabaseState?
    /// `answersEachRequestAlone`: a request is answered when sent, with the file the timeline
    /// says it finds on arrival, without an arrival event.
    let answersWhenSent: Bool
    /// Service time and header size, read once rather than through the configuration.
    let serviceTime: Distribution
    let serviceSampler: Sampler
    let headerBytes: Int

    init(_ scenario: Scenario, schedule: StoreSchedule, start: SimTime, end: SimTime, players: Int) {
        timeline = ServerTimeline(server: StoreServer(config: scenario.server, schedule: schedule,
                                                      epochUnix: scenario.epochUnix, seed: scenario.seed),
                                  start: start, end: end)
        store = timeline.server
        answersWhenSent = scenario.server.answersEachRequestAlone
        serviceTime = scenario.server.serviceTime
        serviceSampler = Sampler(scenario.server.serviceTime)
        headerBytes = scenario.server.file.headerBytes
        serving = ServingState(scenario)
        if let plan = scenario.server.design {
            database = DatabaseState(plan: plan, scenario: scenario, schedule: schedule, players: players)
        }
        usesDatabase = database != nil
        usesServingModel = serving != nil
    }

    /// Whether the original plan's database, or the serving models, answer requests: kept, not
    /// asked of the optionals, whose test copies the whole state out (every request asks).
    let usesDatabase: Bool
    let usesServingModel: Bool
}
