// swift-tools-version:6.0
// ib: turn books into a searchable, askable personal library from the shell.
// Each stage is its own library that links only what that stage needs; each
// tool is a thin executable over one of them. No third-party Swift packages:
// start-up time and a fast clean build matter more than convenience.
import PackageDescription

// C kernels target x86-64-v3 (AVX2, FMA) as the baseline; wider paths are
// selected at run time, never with -march=native.
let cKernelFlags: [CSetting] = [.unsafeFlags(["-O3", "-march=x86-64-v3", "-fno-math-errno"])]

// The tools link the Swift runtime and Foundation in (as --static-swift-stdlib
// does, but at link time only): they start without loading Swift's shared
// libraries, run where no Swift is installed (scripts/package-deb packs them as
// built), and the test bundle, which XCTest needs dynamic, builds in the same
// build from the same objects.
// Objects compiled for the shared runtime name only Foundation; its static
// archive needs what it is built on, named here.
let staticRuntime: [LinkerSetting] = [.unsafeFlags(["-static-stdlib", "-lCoreFoundation", "-l_FoundationICU",
                                                    "-l_FoundationCShims", "-l_FoundationCollections",
                                                    "-lFoundationInternationalization", "-lFoundationEssentials",
                                                    "-lswiftSynchronization"], .when(platforms: [.linux]))]
// The tools that start often on the reader's own input (a search at the prompt,
// a status bar's capture, a Makefile's index and chunk steps) are linked at a
// fixed address: a PIE's ~73k relative relocations (the Swift runtime's and
// Foundation's metadata) would be applied, page by page, at every start
// (`ib-search --help`: ~7.5 -> ~6.1 ms, 510 -> 318 page faults). The tools that
// read files or the network from elsewhere (ib-parse, ib-embed, ib-ask, ib-mcp,
// ib-transcribe) stay position-independent, for address randomisation.
let startsOften: [LinkerSetting] = staticRuntime + [.unsafeFlags(["-Xclang-linker", "-no-pie"], .when(platforms: [.linux]))]
// The tools that speak HTTP (IBHTTP) add FoundationNetworking's own C part and libcurl.
let staticRuntimeHTTP: [LinkerSetting] = staticRuntime + [.unsafeFlags(["-l_CFURLSessionInterface", "-lcurl"], .when(platforms: [.linux]))]

let package = Package(
    name: "ib",
    products: [
        .executable(name: "ib-parse", targets: ["ib-parse"]),
        .executable(name: "ib-chunk", targets: ["ib-chunk"]),
        .executable(name: "ib-embed", targets: ["ib-embed"]),
        .executable(name: "ib-index", targets: ["ib-index"]),
        .executable(name: "ib-search", targets: ["ib-search"]),
        .executable(name: "ib-ask", targets: ["ib-ask"]),
        .executable(name: "ib-capture", targets: ["ib-capture"]),
        .executable(name: "ib-mcp", targets: ["ib-mcp"]),
        .executable(name: "ib-transcribe", targets: ["ib-transcribe"]),
    ],
    targets: [
        // MARK: core
        .target(name: "CIBSupport", cSettings: cKernelFlags),
        .target(name: "IBCore", dependencies: ["CIBSupport"]),
        .target(name: "IBTokenizer", dependencies: ["IBCore"]),
        .target(name: "IBChunk", dependencies: ["IBCore", "IBTokenizer"]),
        // HTTP with FoundationNetworking: streaming, retries, timeouts. Only the tools that talk to the network link it.
        .target(name: "IBHTTP", dependencies: ["IBCore"]),

        // MARK: parsing (poppler, libxml2 and cmark stay in ib-parse only)
        .systemLibrary(name: "CXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CCmark", providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // Audio: ffmpeg and ffprobe are spawned when audio comes (nothing linked).
        .target(name: "IBAudio", dependencies: ["IBCore"]),
        .target(name: "IBParse", dependencies: ["IBCore", "IBAudio", "CXML2", "CCmark", "CZlib"]),  // poppler and libcurl: dlopen on first use (start-up)

        // MARK: the model
        // One CPU-feature dispatcher and the int8 quantiser, shared by CKernels and CIBVec.
        .target(name: "CIBSimd", cSettings: cKernelFlags),
        .target(name: "CKernels", dependencies: ["CIBSimd"], cSettings: cKernelFlags),
        .target(name: "IBModel", dependencies: ["IBCore", "IBTokenizer", "CKernels"]),
        .target(name: "IBEmbed", dependencies: ["IBCore", "IBModel", "IBHTTP", "IBStore"]),
        // Whisper speech to text, native: CTranslate2 model.bin read directly, CKernels for the maths.
        .target(name: "IBWhisper", dependencies: ["IBCore", "IBModel", "CKernels"]),

        // MARK: the library
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "CIBVec", dependencies: ["CSQLite", "CIBSimd"],
                cSettings: cKernelFlags + [.define("SQLITE_CORE"), .unsafeFlags(["-I/usr/include/json-c"])],
                linkerSettings: [.linkedLibrary("json-c")]),
        .target(name: "CIBRank", dependencies: ["CSQLite"], cSettings: cKernelFlags),
        .target(name: "IBStore", dependencies: ["IBCore", "CSQLite", "CIBVec", "CIBRank"]),
        .target(name: "IBSearch", dependencies: ["IBCore", "IBStore", "IBModel", "CKernels", "CIBVec"]),
        .target(name: "IBAsk", dependencies: ["IBCore", "IBStore", "IBSearch", "IBModel", "IBHTTP"]),
        .target(name: "IBCapture", dependencies: ["IBCore", "IBStore"]),
        .target(name: "IBIndex", dependencies: ["IBCore", "IBStore"]),
        // The Model Context Protocol server over the stage libraries (ib-mcp).
        .target(name: "IBMCP", dependencies: ["IBCore", "IBStore", "IBSearch", "IBCapture", "IBAsk"]),

        // MARK: tools
        .executableTarget(name: "ib-parse", dependencies: ["IBCore", "IBParse", "IBWhisper"], linkerSettings: staticRuntime),
        .executableTarget(name: "ib-chunk", dependencies: ["IBCore", "IBTokenizer", "IBChunk"], linkerSettings: startsOften),
        .executableTarget(name: "ib-embed", dependencies: ["IBCore", "IBEmbed"], linkerSettings: staticRuntimeHTTP),
        .executableTarget(name: "ib-index", dependencies: ["IBCore", "IBIndex"], linkerSettings: startsOften),
        .executableTarget(name: "ib-search", dependencies: ["IBCore", "IBSearch"], linkerSettings: startsOften),
        .executableTarget(name: "ib-ask", dependencies: ["IBCore", "IBAsk", "IBSearch"], linkerSettings: staticRuntimeHTTP),
        .executableTarget(name: "ib-capture", dependencies: ["IBCore", "IBCapture", "IBAudio", "IBWhisper"], linkerSettings: startsOften),
        .executableTarget(name: "ib-mcp", dependencies: ["IBCore", "IBMCP"], linkerSettings: staticRuntimeHTTP),
        .executableTarget(name: "ib-transcribe", dependencies: ["IBCore", "IBWhisper"], linkerSettings: staticRuntime),

        // MARK: tests
        // A real HTTP/1.1 server on 127.0.0.1 for provider and URL tests.
        .target(name: "IBTestSupport", dependencies: ["IBCore"], path: "Tests/Support"),
        .testTarget(name: "IBCoreTests", dependencies: ["IBCore"]),
        .testTarget(name: "IBTokenizerTests", dependencies: ["IBTokenizer"]),
        .testTarget(name: "IBChunkTests", dependencies: ["IBChunk", "IBTokenizer"]),
        .testTarget(name: "IBParseTests", dependencies: ["IBParse", "IBTestSupport"]),
        .testTarget(name: "IBAudioTests", dependencies: ["IBAudio", "IBCore"]),
        .testTarget(name: "IBModelTests", dependencies: ["IBModel", "IBEmbed", "IBTestSupport"]),
        .testTarget(name: "IBStoreTests", dependencies: ["IBStore"]),
        .testTarget(name: "IBSearchTests", dependencies: ["IBSearch"]),
        .testTarget(name: "IBAskTests", dependencies: ["IBAsk", "IBSearch", "IBEmbed", "IBStore", "IBHTTP", "IBTestSupport"]),
        .testTarget(name: "IBCaptureTests", dependencies: ["IBCapture"]),
        .testTarget(name: "IBIndexTests", dependencies: ["IBIndex", "IBStore"]),
        .testTarget(name: "IBMCPTests", dependencies: ["IBMCP", "IBCore", "IBStore"]),
        .testTarget(name: "IBEmbedTests", dependencies: ["IBEmbed", "IBTestSupport"]),
        .testTarget(name: "IBHTTPTests", dependencies: ["IBHTTP", "IBTestSupport"]),
        .testTarget(name: "IBWhisperTests", dependencies: ["IBWhisper", "CKernels"]),
    ],
    swiftLanguageModes: [.v6]
)
