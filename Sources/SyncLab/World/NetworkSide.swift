import SyncLabKernel

/// The scenario's links, read in place (`scenario.links` by index), and their draws as plain
/// data (`World+LinkDraws`).
struct NetworkSide {
    let links: StateTable<LinkProfile>
    let samplers: StateTable<LinkSamplers>

    init(_ links: [LinkProfile]) {
        self.links = StateTable(links)
        samplers = StateTable(links.map(LinkSamplers.init))
    }
}
