// One `import SyncLab` is enough for an app team: the kernel's time, readings and randomness
// (`SimTime`, `ClockReading`, `Nanoseconds`, `RandomStream`, …) appear in the plug-in protocols,
// so the library re-exports them. No public name of either module shadows one of the standard
// library, Foundation, Dispatch or Swift Testing (checked when this was added).
@_exported import SyncLabKernel
