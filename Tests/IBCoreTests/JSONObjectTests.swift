import XCTest
@testable import IBCore
#if canImport(Glibc)
import Glibc
#endif

/// Objects with many keys: lookups and duplicates cost O(n) overall, the key
/// order is kept, and one object may hold at most JSON.maxKeysPerObject keys.
final class JSONObjectTests: XCTestCase {
    func objectText(keys: Int, prefix: String = "k") -> String {
        "{" + (0..<keys).map { "\"\(prefix)\($0)\":\($0)" }.joined(separator: ",") + "}"
    }

    func testManyKeysKeepOrderAndAreFoundEach() throws {
        let text = objectText(keys: JSON.maxKeysPerObject)
        let object = try XCTUnwrap(JSON.parse(text).objectValue)
        XCTAssertEqual(object.entries.count, JSON.maxKeysPerObject)
        XCTAssertEqual(object.keys.first, "k0")
        XCTAssertEqual(object.keys.last, "k\(JSON.maxKeysPerObject - 1)")
        for i in stride(from: 0, to: JSON.maxKeysPerObject, by: 997) { XCTAssertEqual(object["k\(i)"]?.intValue, i) }
        XCTAssertNil(object["k-1"])
        XCTAssertEqual(JSON.object(object).serialized, text, "written back byte for byte")
    }

    /// 200,000 keys set one by one: about 2·10¹⁰ key comparisons with a scan per key
    /// (minutes), well under a second with the index.
    func testFillingAHugeObjectIsLinear() {
        let started = Date()
        var object = JSONObject()
        for i in 0..<200_000 { object["key_\(i)"] = .number(Double(i)) }
        for i in 0..<200_000 where i % 1000 == 0 { XCTAssertEqual(object["key_\(i)"]?.intValue, i) }
        XCTAssertEqual(object.entries.count, 200_000)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
    }

    func testDuplicateKeysKeepTheFirstPlaceAndTheLastValue() throws {
        let small = try XCTUnwrap(JSON.parse(#"{"a":1,"b":2,"a":3}"#).objectValue)
        XCTAssertEqual(small.keys, ["a", "b"])
        XCTAssertEqual(small["a"]?.intValue, 3)
        // The same past the indexing threshold: 40 keys, then every one again.
        let fields = (0..<40).map { "\"k\($0)\":\($0)" } + (0..<40).map { "\"k\($0)\":\($0 + 100)" }
        let large = try XCTUnwrap(JSON.parse("{" + fields.joined(separator: ",") + "}").objectValue)
        XCTAssertEqual(large.keys, (0..<40).map { "k\($0)" })
        XCTAssertEqual(large["k7"]?.intValue, 107)
        XCTAssertEqual(JSON.object(large).serialized, "{" + (0..<40).map { "\"k\($0)\":\($0 + 100)" }.joined(separator: ",") + "}")
    }

    func testRemovingAKeyFromALargeObjectKeepsLookupsRight() {
        var object = JSONObject()
        for i in 0..<50 { object["k\(i)"] = .number(Double(i)) }
        object["k10"] = nil
        object["k0"] = nil
        XCTAssertNil(object["k10"])
        XCTAssertEqual(object["k11"]?.intValue, 11)
        XCTAssertEqual(object["k49"]?.intValue, 49)
        XCTAssertEqual(object.keys.count, 48)
        object["k10"] = "back"
        XCTAssertEqual(object.keys.last, "k10")
        XCTAssertEqual(object["k10"]?.stringValue, "back")
        // Shrinking below the threshold still finds every key.
        for i in 12..<50 { object["k\(i)"] = nil }
        XCTAssertEqual(object.keys, ["k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k11", "k10"])
        XCTAssertEqual(object["k11"]?.intValue, 11)
        XCTAssertEqual(object, JSONObject(object.entries.map { ($0.key, $0.value) }))
    }

    func testTooManyKeysInOneObjectIsRefused() {
        XCTAssertThrowsError(try JSON.parse(objectText(keys: JSON.maxKeysPerObject + 1))) { error in
            XCTAssertTrue("\(error)".contains("too many keys in one object (more than 10000)"), "\(error)")
        }
        // Duplicates count: the cap bounds the work, whatever the keys are.
        let repeated = "{" + Array(repeating: #""a":1"#, count: JSON.maxKeysPerObject + 1).joined(separator: ",") + "}"
        XCTAssertThrowsError(try JSON.parse(repeated))
        // The cap is per object: two objects of 6,000 keys in one line are fine.
        XCTAssertNoThrow(try JSON.parse("[" + objectText(keys: 6000) + "," + objectText(keys: 6000, prefix: "j") + "]"))
    }

    func testTooManyKeysNamesTheLine() throws {
        let path = NSTemporaryDirectory() + "ib-json-keys-\(getpid()).jsonl"
        defer { unlink(path) }
        let book = #"{"type":"book","id":"0123456789abcdef","title":"T","authors":[],"language":"en","format":"text","source":"x","sha256":"","page_count":1}"#
        let page = #"{"type":"page","book_id":"0123456789abcdef","page":1,"text":"x","# + objectText(keys: 20_000).dropFirst()
        FileManager.default.createFile(atPath: path, contents: Data((book + "\n" + page + "\n").utf8))
        XCTAssertThrowsError(try RecordReader(path: path).forEach { _, _ in }) { error in
            let message = (error as? IBError)?.message ?? "\(error)"
            XCTAssertTrue(message.hasPrefix("\(path):2: malformed JSON: too many keys in one object"), message)
        }
    }
}
