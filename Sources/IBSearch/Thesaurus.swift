// Thesaurus: synonyms of query words for the full-text half of a search.
//
// The file is scripts/build-thesaurus's, made from WordNet at set-up:
// sorted lines "word<TAB>synonym|synonym|...". It is mapped with mmap and
// binary-searched, so a search pays for the few lines it reads, not for the
// 6 MB file. A missing file means no synonyms (search works as before).
//
// A word's synonyms are those of the word itself and of the base forms its
// regular inflections point to ("tresses" -> tress, "severed" -> sever), as
// WordNet's morphy does; irregular forms have lines of their own.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

public final class Thesaurus: @unchecked Sendable {
    public let path: String
    private let base: UnsafeMutableRawPointer
    private let size: Int

    public init?(path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { return nil }
        let size = Int(info.st_size)
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else { return nil }
        self.path = path
        self.base = p
        self.size = size
    }

    deinit { munmap(base, size) }

    /// Synonyms of a lowercase word or two-word phrase, best first, without the word itself.
    public func synonyms(of word: String) -> [String] {
        var out: [String] = []
        for form in Self.baseForms(word) {
            for synonym in entry(form) ?? [] where synonym != word && !out.contains(synonym) { out.append(synonym) }
        }
        return out
    }

    /// The word, then the bases its regular inflections may come from.
    static func baseForms(_ word: String) -> [String] {
        guard !word.contains(" ") else { return [word] }
        let rules: [(String, String)] = [
            ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"), ("ies", "y"),
            ("es", "e"), ("es", ""), ("s", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""),
            ("er", ""), ("est", ""), ("er", "e"), ("est", "e"),
        ]
        var out = [word]
        for (suffix, replacement) in rules where word.hasSuffix(suffix) && word.count > suffix.count + 2 {
            let form = String(word.dropLast(suffix.count)) + replacement
            if !out.contains(form) { out.append(form) }
        }
        return out
    }

    /// The synonyms on `word`'s line, or nil when it has none.
    func entry(_ word: String) -> [String]? {
        let key = Array(word.utf8)
        let bytes = UnsafeRawBufferPointer(start: base, count: size)
        var low = 0, high = size
        while low < high {
            var start = (low + high) / 2
            while start > low && bytes[start - 1] != 0x0A { start -= 1 }
            var end = start
            while end < size && bytes[end] != 0x0A { end += 1 }
            var tab = start
            while tab < end && bytes[tab] != 0x09 { tab += 1 }
            let order = Self.compare(bytes, start, tab, key)
            if order == 0 {
                guard tab < end else { return nil }
                let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(tab + 1)..<end]), as: UTF8.self)
                return value.split(separator: "|").map(String.init)
            }
            if order < 0 { low = end + 1 } else { high = start }
        }
        return nil
    }

    /// bytes[from..<to] compared with key: negative, zero or positive.
    private static func compare(_ bytes: UnsafeRawBufferPointer, _ from: Int, _ to: Int, _ key: [UInt8]) -> Int {
        var i = from, j = 0
        while i < to && j < key.count {
            if bytes[i] != key[j] { return Int(bytes[i]) - Int(key[j]) }
            i += 1; j += 1
        }
        return (to - from) - key.count
    }
}
