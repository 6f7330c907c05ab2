import SyncLabKernel

extension ScenarioLoader {
    /// Most probes per sync (each is a real request).
    public static let maximumProbes = 16

    /// The client design's options beside its plug-ins: `probes`, `probeTarget`, `showFirstAnswerWithin`, `maxSyncBound`, `persistSync`, `driftCorrection`,
    /// `maxDriftPpm` (see README, "Scenario format").
    static func readClientOptions(_ c: InputNode, into design: inout ClientDesign) throws {
        design.probes = try c.value("probes", default: 1) { try $0.int(min: 1, max: maximumProbes) }
        design.persistSync = try c.value("persistSync", default: false) { try $0.bool() }
        design.probeTarget = try c.value("probeTarget", default: .store, readProbeTarget)
        design.showFirstAnswerWithin = try c.optional("showFirstAnswerWithin") { try $0.duration(in: 0...Limits.day) }
        design.maxSyncBound = try c.optional("maxSyncBound") { try $0.duration(in: 0...Limits.day) }
        if design.showFirstAnswerWithin != nil, design.probeTarget != .store, let key = c.child("showFirstAnswerWithin") {
            // The endpoint's answer carries the server's time and no file: nothing to show yet.
            throw key.error("needs probes that fetch the store file (client.probeTarget \"store\"): a time endpoint's "
                            + "answer has no file to show; drop showFirstAnswerWithin or probe the store")
        }
        design.driftCorrection = try c.optional("driftCorrection") { n -> DriftCorrection? in
            if case .bool(let on) = n.value { return on ? DriftCorrection() : nil }
            guard case .object = n.value else {
                throw n.error("expected true, false or an object {minInterval, maxPpm}; got \(InputNode.describe(n.value))")
            }
            let defaults = DriftCorrection()
            let minInterval = try n.value("minInterval", default: defaults.minInterval) {
                try $0.duration(in: Int64.minute...Limits.runLength)
            }
            let maxPPM = try n.value("maxPpm", default: Double(defaults.maxPPB) / 1_000) { m -> Double in
                let v = try m.double()
                guard v >= 0 && v <= Limits.driftPPM else {
                    throw m.error("must be between 0 and \(Int(Limits.driftPPM)) ppm; got \(InputNode.describeScalar(m.value))")
                }
                return v
            }
            try n.rejectUnknownKeys()
            return DriftCorrection(minInterval: minInterval, maxPPB: Int64((maxPPM * 1_000).rounded()))
        } ?? nil
        design.syncReading = try c.value("syncAt", default: .downloadComplete) { n -> SyncReadingInstant in
            let text = try n.string()
            guard let instant = SyncReadingInstant(rawValue: text) else {
                let names = SyncReadingInstant.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
                throw n.error("expected one of \(names); got \(InputNode.describeScalar(n.value))")
            }
            return instant
        }
        design.maxDriftPPM = try c.value("maxDriftPpm", default: 100) { n -> Double in
            let v = try n.double()
            guard v >= 0 && v <= Limits.driftPPM else {
                throw n.error("must be between 0 and \(Int(Limits.driftPPM)) ppm; got \(InputNode.describeScalar(n.value))")
            }
            return v
        }
    }
}
