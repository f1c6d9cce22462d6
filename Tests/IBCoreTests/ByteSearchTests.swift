// ByteSearch: the one byte-run search the parser, search and BookMatter share.
import IBCore
import XCTest

final class ByteSearchTests: XCTestCase {
    func testFirstIndexFindsEveryPlaceAndNothingElse() {
        let text = Array("abracadabra, café".utf8)
        func all(_ needle: String) -> [Int] {
            let n = Array(needle.utf8)
            var found: [Int] = [], from = 0
            while let at = n.withUnsafeBufferPointer({ nb in text.withUnsafeBufferPointer { tb in ByteSearch.firstIndex(of: nb, in: tb, from: from) } }) {
                found.append(at)
                from = at + 1
                if n.isEmpty { break }
            }
            return found
        }
        XCTAssertEqual(all("abra"), [0, 7])
        XCTAssertEqual(all("a"), [0, 3, 5, 7, 10, 14])
        XCTAssertEqual(all("café"), [13], "a multi-byte character")
        XCTAssertEqual(all("é"), [16])
        XCTAssertEqual(all("abracadabra, café!"), [], "longer than the text at its end")
        XCTAssertEqual(all("xyz"), [])
        XCTAssertEqual(all(""), [0], "an empty needle is at the start")
        XCTAssertEqual(ByteSearch.firstIndex(of: Array("ra".utf8), in: text), 2)
        XCTAssertTrue(ByteSearch.contains(Array("dab".utf8), in: text))
        XCTAssertFalse(ByteSearch.contains(Array("bad".utf8), in: text))
        XCTAssertFalse(ByteSearch.contains(Array("a".utf8), in: []))
        // a start past the text finds nothing
        XCTAssertNil(Array("a".utf8).withUnsafeBufferPointer { n in text.withUnsafeBufferPointer { ByteSearch.firstIndex(of: n, in: $0, from: 99) } })
    }
}
