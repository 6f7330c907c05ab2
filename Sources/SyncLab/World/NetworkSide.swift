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
    /// The same profiles, each in a box of its own, for the calls that hand a whole profile (or
    /// one of its models) to a plug-in: read from `links`, a profile was copied with every model
    /// it holds, their references retained and released, on every such call; read through a
    /// box's constant it is borrowed where it lies. Plain fields are read from `links`.
    let boxes: [LinkBox]

    init(_ links: [LinkProfile]) {
        self.links = StateTable(links)
        boxes = links.map(LinkBox.init)
        answerLead = links.map { $0.lookahead(.downlink) }
        samplers = StateTable(links.map(LinkSamplers.init))
        modelsConnection = links.contains { $0.modelsConnection }
    }
}

/// A link's profile behind a reference, never changed (`NetworkSide.boxes`).
final class LinkBox: Sendable {
    let profile: LinkProfile
    init(_ profile: LinkProfile) { self.profile = profile }
}
