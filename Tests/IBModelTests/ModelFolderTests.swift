// Bad model folders give clear errors, never a crash: each test damages a
// copy of the real model folder (weights linked or copied, one file changed).
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IBCore
import IBModel
import IBTokenizer
import XCTest

final class ModelFolderTests: XCTestCase {
    var scratch = ""
    let model = Config.modelDirectory()

    override func setUpWithError() throws {
        var template = Array("/tmp/ib-model-test-XXXXXX".utf8CString)
        scratch = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        setenv("XDG_CACHE_HOME", scratch + "/cache", 1)
    }

    override func tearDownWithError() throws {
        _ = system("rm -rf '\(scratch)'")
        unsetenv("XDG_CACHE_HOME")
    }

    /// A folder whose files link to the real model, except those in `replace`.
    func folder(_ name: String, replace: [String: [UInt8]] = [:]) throws -> String {
        let dir = scratch + "/" + name
        try FileSystem.createDirectories(dir + "/1_Pooling")
        for file in ["config.json", "model.safetensors", "vocab.txt", "sentence_bert_config.json", "modules.json", "1_Pooling/config.json"] {
            if let bytes = replace[file] {
                let fd = open(dir + "/" + file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                XCTAssertGreaterThanOrEqual(fd, 0)
                bytes.withUnsafeBytes { _ = write(fd, $0.baseAddress, $0.count) }
                close(fd)
            } else {
                XCTAssertEqual(symlink(model + "/" + file, dir + "/" + file), 0)
            }
        }
        return dir
    }

    func assertLoadFails(_ dir: String, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try SentenceEncoder(directory: dir), file: file, line: line) { error in
            let message = (error as? IBError)?.message ?? "\(error)"
            XCTAssertTrue(message.contains(fragment), "'\(message)' lacks '\(fragment)'", file: file, line: line)
        }
    }

    /// ib-chunk (IBTokenizer) and ib-embed (IBModel) read the same sequence length, so no chunk is cut.
    func testChunkerAndEncoderAgreeOnTheSequenceLength() throws {
        let config = #"{"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "vocab_size": 10, "max_position_embeddings": 128}"#
        func lengths(_ sentenceConfig: String?) throws -> (chunker: Int, encoder: Int) {
            let dir = scratch + "/len\(sentenceConfig?.count ?? 0)"
            try FileSystem.createDirectories(dir)
            try config.write(toFile: dir + "/config.json", atomically: true, encoding: .utf8)
            try sentenceConfig?.write(toFile: dir + "/sentence_bert_config.json", atomically: true, encoding: .utf8)
            let bert = try BertConfig(path: dir + "/config.json")
            return (try ModelFolder.maxSequenceLength(directory: dir), try SentenceConfig(directory: dir, config: bert).maxSequenceLength)
        }
        let unsaid = try lengths(nil)
        XCTAssertEqual(unsaid.chunker, 128, "the model's positions, not 512")
        XCTAssertEqual(unsaid.encoder, 128)
        let tooLong = try lengths(#"{"max_seq_length": 600}"#)
        XCTAssertEqual(tooLong.chunker, 128)
        XCTAssertEqual(tooLong.encoder, 128)
        let shorter = try lengths(#"{"max_seq_length": 64, "do_lower_case": false}"#)
        XCTAssertEqual(shorter.chunker, 64)
        XCTAssertEqual(shorter.encoder, 64)
    }

    func testMissingFolderSaysFetchModel() {
        assertLoadFails(scratch + "/nowhere", "scripts/fetch-model")
    }

    func testTruncatedWeights() throws {
        let weights = try FileSystem.read(model + "/model.safetensors")
        assertLoadFails(try folder("cut", replace: ["model.safetensors": Array(weights.prefix(40_000_000))]), "truncated")
        assertLoadFails(try folder("tiny", replace: ["model.safetensors": [1, 2, 3]]), "truncated")
        assertLoadFails(try folder("header", replace: ["model.safetensors": [255, 255, 0, 0, 0, 0, 0, 0, 123]]), "truncated")
    }

    func testWrongSHA256() throws {
        var weights = try FileSystem.read(model + "/model.safetensors")
        weights[weights.count - 100] ^= 0x40
        assertLoadFails(try folder("sha", replace: ["model.safetensors": weights]), "sha256")
    }

    func testWrongShapeFromConfig() throws {
        let config = try FileSystem.readText(model + "/config.json")
            .replacingOccurrences(of: "\"max_position_embeddings\": 512", with: "\"max_position_embeddings\": 1024")
        assertLoadFails(try folder("shape", replace: ["config.json": Array(config.utf8)]), "position_embeddings.weight' has shape [512, 384], expected [1024, 384]")
    }

    func testVocabularyNotMatchingConfig() throws {
        let vocab = try FileSystem.readText(model + "/vocab.txt").split(separator: "\n").prefix(30_000).joined(separator: "\n") + "\n"
        assertLoadFails(try folder("vocab", replace: ["vocab.txt": Array(vocab.utf8)]), "vocab_size 30522")
    }

    func testGoodCopyLoadsAndStampsTheHash() throws {
        let dir = try folder("good")
        let encoder = try SentenceEncoder(directory: dir)
        XCTAssertEqual(encoder.modelID, "good")
        XCTAssertTrue(FileSystem.isDirectory(scratch + "/cache/ib/verified"), "the sha256 stamp was written")
        // The first hash dropped the file's pages to bring them back in large folios: the
        // weights read after it are the same.
        let reference = try SentenceEncoder(directory: model, verify: .structureOnly)
        XCTAssertEqual(encoder.embed(["The weights after their first hash."]), reference.embed(["The weights after their first hash."]))
    }

    /// The weights' mapping carries MADV_HUGEPAGE (the "hg" flag of its /proc/self/smaps entry),
    /// so that a read missing the page cache brings the file in as 2 MiB folios.
    func testTheWeightsAreMappedForHugePages() throws {
        guard FileSystem.exists("/sys/kernel/mm/transparent_hugepage/enabled") else {
            throw XCTSkip("this kernel has no transparent huge pages")
        }
        let path = model + "/model.safetensors"
        guard let resolved = realpath(path, nil) else { return XCTFail("\(path) is missing") }
        let real = String(cString: resolved); free(resolved)
        let file = try SafeTensors(path: path)
        let smaps = String(decoding: try FileSystem.read("/proc/self/smaps"), as: UTF8.self)
        let entries = smaps.split(separator: "\n", omittingEmptySubsequences: false)
        var flags: [String] = []
        for (i, line) in entries.enumerated() where line.hasSuffix(" " + real) {
            if let vm = entries[(i + 1)...].first(where: { $0.hasPrefix("VmFlags:") }) { flags.append(String(vm)) }
        }
        XCTAssertFalse(flags.isEmpty, "no mapping of \(real) in /proc/self/smaps")
        for vm in flags { XCTAssertTrue(vm.split(separator: " ").contains("hg"), "not advised for huge pages: \(vm)") }
        withExtendedLifetime(file) {}
    }
}
