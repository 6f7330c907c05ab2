/// The one near-miss rule behind every "did you mean": unknown keys in scenarios and the other
/// input files, budget figures, figure keys asked of a run, and command-line options.
///
/// A word's near miss is the candidate that differs from it only in case, else the one nearest by
/// edit distance (insertions, deletions and substitutions of characters) when that distance is
/// within `reach` of the word and shorter than the candidate itself; the earliest candidate wins a
/// tie. A candidate that is also present in the input is still suggested: through `extends` it
/// may have come from another file, and a typo of a key that is set is still that key's typo.
public enum NearMiss {
    /// Words longer than this are compared by their first `longestWord` characters only: the
    /// distance costs length × length, and no key or figure is nearly this long.
    public static let longestWord = 200

    /// The most edits a suggestion may be away: 2, or 3 from 12 characters on (figure keys such
    /// as "transitionGapMs.p99" are long enough to hold three slips and still be recognisable).
    public static func reach(_ word: String) -> Int { word.count >= 12 ? 3 : 2 }

    /// The candidate `word` most likely stands for, or nil when none is near.
    public static func suggestion(for word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        if let match = candidates.first(where: { $0.lowercased() == lowered }) { return match }
        let reach = Self.reach(word)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where abs(candidate.count - word.count) <= reach {
            let d = distance(word, candidate)
            if d <= reach, d < candidate.count, d < (best?.distance ?? Int.max) { best = (candidate, d) }
        }
        return best?.candidate
    }

    /// " (did you mean 'x'?)" after a list of the choices, or "" when none is near.
    public static func hint(for word: String, among candidates: [String]) -> String {
        suggestion(for: word, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// The `count` candidates nearest `word` by edit distance, nearest first (ties: earlier first).
    public static func nearest(_ count: Int, to word: String, among candidates: [String]) -> [String] {
        let ranked = candidates.enumerated().map { (distance: distance(word, $0.element), index: $0.offset, candidate: $0.element) }
        return ranked.sorted { ($0.distance, $0.index) < ($1.distance, $1.index) }.prefix(max(0, count)).map(\.candidate)
    }

    /// "'a', 'b' or 'c'": candidates for a message.
    public static func alternatives(_ words: [String]) -> String {
        let quoted = words.map { "'\(InputError.escapingControls($0))'" }
        guard let last = quoted.last else { return "" }
        return quoted.count == 1 ? last : quoted.dropLast().joined(separator: ", ") + " or " + last
    }

    /// Edit distance counting insertions, deletions and substitutions of characters, over at most
    /// the first `longestWord` characters of each.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.prefix(longestWord)), b = Array(b.prefix(longestWord))
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
