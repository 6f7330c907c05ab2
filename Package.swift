// swift-tools-version:6.0
// SyncLab: a deterministic time-sync accuracy lab. No third-party packages, by design.
import PackageDescription

let package = Package(
    name: "SyncLab",
    products: [
        // The simulator and its models, importable by an app team's own test target.
        .library(name: "SyncLab", targets: ["SyncLab"]),
        .library(name: "SyncLabKernel", targets: ["SyncLabKernel"]),
        .library(name: "SyncLabReports", targets: ["SyncLabReports"]),
        .executable(name: "synclab", targets: ["SyncLabTool"]),
    ],
    targets: [
        // Kernel: virtual time, clock readings, seeded randomness, the event queue. No Foundation.
        // It links libm itself on Linux: rounding and square roots come from there, and a
        // consumer that imports only the kernel must still link.
        .target(name: "SyncLabKernel", linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        // The lab: scenario input, the models, client design plug-ins, the world, metrics.
        .target(name: "SyncLab", dependencies: ["SyncLabKernel"]),
        // Pure renderers: Markdown, CSV, JSON. They read results; they never run anything.
        .target(name: "SyncLabReports", dependencies: ["SyncLab", "SyncLabKernel"]),
        // Command line: argument parsing and the only code that touches the file system.
        .target(name: "SyncLabCLI", dependencies: ["SyncLab", "SyncLabReports", "SyncLabKernel"]),
        .executableTarget(name: "SyncLabTool", dependencies: ["SyncLabCLI"]),

        .testTarget(name: "SyncLabKernelTests", dependencies: ["SyncLabKernel"]),
        .testTarget(name: "SyncLabTests", dependencies: ["SyncLab", "SyncLabKernel"]),
        .testTarget(name: "SyncLabReportsTests", dependencies: ["SyncLabReports", "SyncLab"]),
        .testTarget(name: "SyncLabCLITests", dependencies: ["SyncLabCLI", "SyncLab"]),
    ]
)
