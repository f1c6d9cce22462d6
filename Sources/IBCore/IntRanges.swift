// Runs of integers (chunk indexes, chunk seqs) joined where they overlap or touch.

extension Array where Element == ClosedRange<Int> {
    /// The ranges sorted, overlapping or touching ones joined.
    public func merged() -> [ClosedRange<Int>] {
        var out: [ClosedRange<Int>] = []
        for r in sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, r.lowerBound <= last.upperBound + 1 {
                out[out.count - 1] = last.lowerBound...Swift.max(last.upperBound, r.upperBound)
            } else {
                out.append(r)
            }
        }
        return out
    }
}
