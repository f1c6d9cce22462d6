// Finding a run of bytes in a text's bytes: memchr for the first byte, memcmp
// for the rest. Callers search UTF-8 (a word in a chunk, a marker in a page)
// without making Strings, whose `contains` compares Characters and is many
// times slower: the parser sniffing a format, search matching a query's words
// in every candidate, the hybrid ranking's test for licence pages.
#if canImport(Glibc)
import Glibc
#endif

public enum ByteSearch {
    /// The first offset at or after `from` where `needle` starts in `text`;
    /// `from` itself for an empty needle (when it is inside the text).
    public static func firstIndex(of needle: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>, from: Int = 0) -> Int? {
        guard from >= 0, from <= text.count else { return nil }
        guard let first = needle.first else { return from }
        var i = from
        while i + needle.count <= text.count {
            guard let p = memchr(text.baseAddress! + i, Int32(first), text.count - needle.count - i + 1) else { return nil }
            let at = text.baseAddress!.distance(to: p.assumingMemoryBound(to: UInt8.self))
            if memcmp(p, needle.baseAddress!, needle.count) == 0 { return at }
            i = at + 1
        }
        return nil
    }

    /// firstIndex over arrays.
    public static func firstIndex(of needle: [UInt8], in text: [UInt8]) -> Int? {
        needle.withUnsafeBufferPointer { n in text.withUnsafeBufferPointer { t in firstIndex(of: n, in: t) } }
    }

    /// Whether `needle` occurs in `text` (an empty needle always does).
    public static func contains(_ needle: [UInt8], in text: [UInt8]) -> Bool { firstIndex(of: needle, in: text) != nil }
}
