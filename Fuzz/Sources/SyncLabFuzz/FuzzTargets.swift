// The fuzz targets: one per reader of input. Each is one file (`<Name>Target.swift`) defining a
// `FuzzTarget`, and one line in `FuzzTargets.all` below. Scripts/fuzz.sh and the Makefile ask
// the binary for this list, so they need no change. Beside the code: seeds in
// Fuzz/corpus/<name>/ (and, if useful, Fuzz/dictionaries/<name>.dict), a row in
// docs/fuzzing.md and a case in FuzzRegressionTests.commands (a test checks those two).

import Foundation

/// A reader of input and what it feeds, as libFuzzer drives it.
struct FuzzTarget: Sendable {
    /// The name Scripts/fuzz.sh and SYNCLAB_FUZZ_TARGET use, and the corpus folder's.
    let name: String
    /// One line: what the target feeds the input through.
    let summary: String
    /// Runs once before the first input: by default the warm-up of `TinyRun`, so the lab's
    /// one-time work (the link presets' tables) is not charged to the first input that needs it.
    var prepare: @Sendable () -> Void = TinyRun.warmUp
    /// Runs one input. Refusing it (any Swift error) is a normal outcome; it must return.
    let body: @Sendable (Data) -> Void
}

enum FuzzTargets {
    /// Every target. A new reader: add its target here.
    static let all: [FuzzTarget] = [
        ScenarioTarget.child,
        ScenarioTarget.base,
        SearchTarget.target,
        MahimahiTraceTarget.target,
        LatencyTraceTarget.target,
        MergeTarget.sweep,
        MergeTarget.search,
        TelemetryTarget.target,
    ]
}
