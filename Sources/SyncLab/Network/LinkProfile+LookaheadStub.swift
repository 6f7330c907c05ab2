import SyncLabKernel
// TEMPORARY until the floors branch lands.
extension LinkProfile {
    public func lookahead(_ direction: LinkDirection) -> Nanoseconds { 1_000_000 }
}
