import SyncLabKernel

/// The scenario's links, read in place (`scenario.links` by index), and their draws as plain
/// data (`World+LinkDraws`).
struct NetworkSide {
    let links: StateTable<LinkProfile>
    let samplers: StateTable<LinkSamplers>
    /// Some link loses segments, closes idle connections or idles its radio (`World+Connection`):
    /// one test per request and per response on the plain path, read from the world itself.
    let modelsConnection: Bool
    /// Per link, the least time from a request's arrival at the fleet to the first instant its
    /// answer can change the player: the downlink's lookahead (`FleetCoordinator`).
    let answerLead: [Nanoseconds]

    init(_ links: [LinkProfile]) {
        self.links = StateTable(links)
        answerLead = links.map { $0.lookahead(.downlink) }
        samplers = StateTable(links.map(LinkSamplers.init))
        modelsConnection = links.contains { $0.modelsConnection }
    }
}
