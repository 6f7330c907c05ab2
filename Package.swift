// swift-tools-version:6.2
// SyncLab: a deterministic time-sync accuracy lab. No third-party packages, by design.
// Swift 6.2 is the first compiler with `MutableSpan`, which lends estimators their memory.
import PackageDescription

/// Settings of the test targets' own code: unoptimised in release too (see `make test`).
let testCode: [SwiftSetting] = [.unsafeFlags(["-Onone"], .when(configuration: .release))]

let package = Package(
    name: "SyncLab",
    // So an iOS app's test target can depend on the library. The oldest systems with everything
    // it uses: Dispatch's concurrentPerform, typed throws and the Span types (back-deployed to
    // iOS 12.2 / macOS 10.14.4) are older; iOS 15 and macOS 12 are those an app still supports.
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        // The simulator and its models, importable by an app team's own test target.
        .library(name: "SyncLab", targets: ["SyncLab"]),
        .library(name: "SyncLabKernel", targets: ["SyncLabKernel"]),
        .library(name: "SyncLabReports", targets: ["SyncLabReports"]),
        // The command line as a library: an app's executable runs it with the app's registry.
        .library(name: "SyncLabCLI", targets: ["SyncLabCLI"]),
        .executable(name: "synclab", targets: ["SyncLabTool"]),
    ],
    targets: [
        // Kernel: virtual time, clock readings, seeded randomness, the event queue. No Foundation.
        // It links libm itself on Linux: rounding and square roots come from there, and a
        // consumer that imports only the kernel must still link.
        .target(name: "SyncLabKernel", linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        // The lab: scenario input, the models, client design plug-ins, the world, metrics. The
        // shipped scenarios are its resources (`ShippedScenarios`), so they load on a device or
        // in an app's test bundle; the repository's `Scenarios` is a link to that folder. The
        // correlated presets' quantile tables are built ahead (`ShippedQuantileTables`).
        .target(name: "SyncLab", dependencies: ["SyncLabKernel"], resources: [.copy("Resources/Scenarios"), .copy("Resources/QuantileTables")]),
        // Pure renderers: Markdown, CSV, JSON. They read results; they never run anything.
        .target(name: "SyncLabReports", dependencies: ["SyncLab", "SyncLabKernel"]),
        // Command line: argument parsing and the only code that touches the file system.
        .target(name: "SyncLabCLI", dependencies: ["SyncLab", "SyncLabReports", "SyncLabKernel"]),
        .executableTarget(name: "SyncLabTool", dependencies: ["SyncLabCLI"]),

        // `make test` builds in release, so the lab's code under test runs optimised; the tests'
        // own code is not worth optimising (a quarter of the build) and is compiled -Onone.
        // Test targets are never built by a package that depends on this one, so the flag does
        // not reach an app team's build (SwiftPM refuses unsafe flags in dependencies' products).
        .testTarget(name: "SyncLabKernelTests", dependencies: ["SyncLabKernel"], swiftSettings: testCode),
        .testTarget(name: "SyncLabTests", dependencies: ["SyncLab", "SyncLabKernel"], swiftSettings: testCode),
        .testTarget(name: "SyncLabReportsTests", dependencies: ["SyncLabReports", "SyncLab"], swiftSettings: testCode),
        .testTarget(name: "SyncLabCLITests", dependencies: ["SyncLabCLI", "SyncLab"], swiftSettings: testCode),
    ]
)
