// BERT's text normalisation and pre-tokenisation, one Unicode scalar at a
// time, as the all-MiniLM-L6-v2 tokenizer does it:
//   1. drop NUL, U+FFFD and control, format and private-use scalars
//      (tab, CR and LF are whitespace, not control);
//   2. whitespace separates words;
//   3. CJK ideographs become words of their own;
//   4. lower-case (per scalar, no context), then strip accents (NFD, then
//      drop nonspacing marks);
//   5. punctuation (Unicode P* plus ASCII symbols) becomes its own word.
// There is no NFKC: full-width letters and ligatures stay as they are.
import IBCore

enum ScalarClass: UInt8 {
    case letter       // part of a word
    case whitespace   // ends a word
    case removed      // dropped without ending a word
    case punctuation  // a word of its own
    case ideograph    // a word of its own (CJK)
}

enum CharacterRules {
    /// ASCII classes, precomputed.
    static let ascii: [ScalarClass] = (0..<128).map { (i: Int) -> ScalarClass in
        switch i {
        case 0x09, 0x0A, 0x0D, 0x20: return .whitespace
        case 0..<0x20, 0x7F: return .removed
        case 0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E: return .punctuation
        default: return .letter
        }
    }

    /// The class of a scalar as it appears in the input.
    static func inputClass(_ scalar: Unicode.Scalar) -> ScalarClass {
        let v = scalar.value
        if v < 128 { return ascii[Int(v)] }
        if v == 0xFFFD { return .removed }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .format, .privateUse, .surrogate: return .removed  // unassigned scalars stay, as [UNK]
        default: break
        }
        if properties.isWhitespace { return .whitespace }
        if TextClasses.isBERTChineseCharacter(v) { return .ideograph }
        return .letter
    }

    /// After normalisation, only punctuation needs telling apart from letters.
    static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 128 { return ascii[Int(v)] == .punctuation }
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// The accent-stripped form of `v` from AccentTable.swift, by binary search.
    @inline(__always)
    static func accentReplacement(_ v: UInt32) -> Range<Int>? {
        var lo = 0, hi = accentKeys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if accentKeys[mid] < v { lo = mid + 1 } else { hi = mid }
        }
        guard lo < accentKeys.count, accentKeys[lo] == v else { return nil }
        return Int(accentStarts[lo])..<Int(accentStarts[lo + 1])
    }

    /// Lower-cases one scalar and strips its accents, appending the result.
    @inline(__always)
    static func normalize(_ scalar: Unicode.Scalar, into out: inout [Unicode.Scalar]) {
        let v = scalar.value
        if v < 128 {
            out.append(v >= 0x41 && v <= 0x5A ? Unicode.Scalar(v + 32)! : scalar)
            return
        }
        for lower in scalar.properties.lowercaseMapping.unicodeScalars {
            stripAccents(lower, into: &out)
        }
    }

    @inline(__always)
    static func stripAccents(_ scalar: Unicode.Scalar, into out: inout [Unicode.Scalar]) {
        let v = scalar.value
        if v >= 0xAC00 && v <= 0xD7A3 {
            // Hangul syllables decompose algorithmically into conjoining jamo.
            let index = v - 0xAC00
            out.append(Unicode.Scalar(0x1100 + index / 588)!)
            out.append(Unicode.Scalar(0x1161 + (index % 588) / 28)!)
            if index % 28 != 0 { out.append(Unicode.Scalar(0x11A7 + index % 28)!) }
        } else if let replacement = accentReplacement(v) {
            for i in replacement { out.append(Unicode.Scalar(accentValues[i])!) }
        } else {
            out.append(scalar)
        }
    }
}
