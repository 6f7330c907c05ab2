import SyncLabKernel

/// The size of the published store file, from the seeds' PHP: `json_encode` the items, pad to a
/// multiple of 16 bytes the PKCS#7 way (always 1–16 bytes of padding), encrypt with AES-256-CBC
/// (same length), then Base64 (4 characters per 3 bytes, rounded up).
public struct StoreFileFormat: Sendable, Equatable {
    /// JSON bytes that do not depend on the item count (braces, timestamp field, …).
    public var overheadBytes: Int
    /// JSON bytes per item (id, name, price, start, end, position).
    public var bytesPerItem: Int
    public var encrypted: Bool
    public var base64: Bool
    /// HTTP response headers and the like, sent with every response.
    public var headerBytes: Int
    /// Every response has exactly this many bytes, whatever the items (a reference workload's
    /// fixed payload); nil: the size follows from the items as above.
    public var fixedBytes: Int? = nil

    public init(overheadBytes: Int = 120, bytesPerItem: Int = 150, encrypted: Bool = true,
                base64: Bool = true, headerBytes: Int = 300) {
        self.overheadBytes = overheadBytes
        self.bytesPerItem = bytesPerItem
        self.encrypted = encrypted
        self.base64 = base64
        self.headerBytes = headerBytes
    }

    /// Bytes on the wire for a file listing `items` items.
    public func responseBytes(items: Int) -> Int {
        if let fixedBytes { return fixedBytes }
        var n = overheadBytes + bytesPerItem * items
        if encrypted { n = (n / 16 + 1) * 16 }          // PKCS#7 adds 1…16 bytes
        if base64 { n = 4 * ((n + 2) / 3) }
        return n + headerBytes
    }
}

/// One published version of the store file: what a client downloading it learns.
public struct PublishedFile: Sendable, Equatable {
    public var version: Int
    /// True time the file was written to disk.
    public var publishedAt: SimTime
    /// Per position, the start of the first item the file lists (the one current at publication).
    public let coverageStart: [Int64]
    /// Per position, the end of the last item the file lists: the client is bare there after it.
    public let coverage: [Int64]
    public var items: Int
    public var responseBytes: Int
    /// Server times in `listsAllFrom ..< listsAllUntil` are listed on every position (empty if
    /// none is): where a UI usually shows, so one test answers for all positions.
    public let listsAllFrom: Int64
    public let listsAllUntil: Int64
    /// The latest covered end over all positions: no position has data beyond it.
    public var latestCoverage: Int64 { coverage.max() ?? .min }

    public init(version: Int, publishedAt: SimTime, coverageStart: [Int64], coverage: [Int64], items: Int,
                responseBytes: Int) {
        precondition(coverageStart.count == coverage.count, "one coverage range per position")
        self.version = version
        self.publishedAt = publishedAt
        self.coverageStart = coverageStart
        self.coverage = coverage
        self.items = items
        self.responseBytes = responseBytes
        listsAllFrom = coverageStart.max() ?? .min
        listsAllUntil = coverage.min() ?? .max
    }

    /// Whether the file lists the item showing at server time `s` on position `p`.
    @inlinable public func lists(_ s: Int64, position p: Int) -> Bool {
        coverageStart[p] <= s && s < coverage[p]
    }

    /// Whether every position lists the item showing at server time `s`.
    @inlinable public func listsAll(_ s: Int64) -> Bool { listsAllFrom <= s && s < listsAllUntil }
}
