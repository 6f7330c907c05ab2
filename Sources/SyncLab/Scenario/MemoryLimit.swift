import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How much memory this process may really use: the lowest of its address-space and data
/// limits (`ulimit -v`, `ulimit -d`), its cgroup's `memory.max` and the memory the system has
/// available now. A run whose estimate passes it is refused before anything is allocated,
/// instead of dying in the middle with "failed to allocate". Read only to refuse: nothing a
/// run produces depends on it.
public struct MemoryLimit: Sendable, Equatable {
    public var bytes: Double
    /// Where the limit comes from, for the refusal ("the address-space limit (ulimit -v)").
    public var source: String
    /// Address space held back from the limit the system sets (`addressSpaceOverhead`), so a
    /// refusal can say what limit would let the run start; 0 for other limits.
    public var reserved: Double

    public init(bytes: Double, source: String, reserved: Double = 0) {
        self.bytes = bytes
        self.source = source
        self.reserved = reserved
    }

    /// The limit in words for a refusal: "the limit is 16 GiB, the lab's ceiling for any run", or
    /// for an address-space limit what code and stacks take of it and what is left ("the
    /// address-space limit (ulimit -v 200000, 195 MiB) less about 272 MiB for code, stacks and
    /// arenas leaves nothing for the run").
    public var described: String {
        guard reserved > 0 else { return "the limit is \(ScenarioLoader.gib(bytes)), \(source)" }
        return "\(source) less about \(ScenarioLoader.gib(reserved)) for code, stacks and arenas leaves "
            + (bytes > 0 ? ScenarioLoader.gib(bytes) : "nothing for the run")
    }

    /// The ceiling a scenario may plan for on any machine (`synclab validate` checks it, so a
    /// scenario's validity does not depend on the machine).
    public static let plannable = MemoryLimit(bytes: Double(Scenario.memoryLimitBytes), source: "the lab's ceiling for any run")

    /// Address space a run reserves beyond what it touches (code, the runtime, each thread's
    /// stack and malloc arena), held back from an address-space limit only: 128 MiB plus 72 MiB
    /// a thread. Measured: peak virtual size less peak resident size of `synclab run` was 160 and
    /// 168 MiB with two threads, at 1,000 and 100,000 players (/proc/PID/status VmPeak, VmRSS).
    public static var addressSpaceOverhead: Double {
        Double(128 + 72 * max(1, Simulation.defaultThreads)) * 1_048_576
    }

    /// The lowest limit that applies to this process now.
    public static func current() -> MemoryLimit {
        var candidates: [MemoryLimit] = [plannable]
        #if os(Linux) || os(macOS)
        var rl = rlimit()
        // RLIM_INFINITY is all ones on Linux and 2^63 − 1 on Darwin: anything this large is no limit.
        let unlimited = rlim_t(1) << 62
        if getrlimit(Int32(RLIMIT_AS.rawValue), &rl) == 0, rl.rlim_cur < unlimited {
            candidates.append(MemoryLimit(bytes: max(0, Double(rl.rlim_cur) - addressSpaceOverhead),
                                          source: "the address-space limit (ulimit -v \(rl.rlim_cur / 1024), \(ScenarioLoader.gib(Double(rl.rlim_cur))))",
                                          reserved: addressSpaceOverhead))
        }
        if getrlimit(Int32(RLIMIT_DATA.rawValue), &rl) == 0, rl.rlim_cur < unlimited {
            candidates.append(MemoryLimit(bytes: Double(rl.rlim_cur), source: "the data-segment limit (ulimit -d \(rl.rlim_cur / 1024))"))
        }
        #endif
        if let cgroup = cgroupLimit() { candidates.append(cgroup) }
        if let available = availableMemory() { candidates.append(available) }
        return candidates.min { $0.bytes < $1.bytes }!
    }

    /// cgroup v2 `memory.max` (or v1 `memory.limit_in_bytes`) of this process's group.
    static func cgroupLimit() -> MemoryLimit? {
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            // "max", or v1's "no limit" of about 2^63.
            guard let bytes = Double(value), bytes < 1e18 else { continue }
            return MemoryLimit(bytes: bytes, source: "the cgroup's memory limit (\(path))")
        }
        return nil
    }

    /// `MemAvailable` of /proc/meminfo: what the kernel can hand out without swapping.
    static func availableMemory() -> MemoryLimit? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let kib = Double(fields[1]) else { return nil }
            return MemoryLimit(bytes: kib * 1024, source: "the memory available now (MemAvailable in /proc/meminfo)")
        }
        return nil
    }
}
