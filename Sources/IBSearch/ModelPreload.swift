// The query model, loaded on another thread while ib-search opens the library
// and reads the books in scope. Loading it (the vocabulary's table, the
// weights' map, the configuration files: ~6 ms) came after all of that on the
// search's longer half, the one that embeds the query and scans the vectors;
// the other core had nothing to do until the full-text half started. The
// engine takes the preloaded model when it wants the same folder, and loads
// its own otherwise (a library embedded with another model). The weights'
// packed copy in the cache folder is mapped here too (PackedWeightsFile).
import Dispatch
import IBCore
import IBModel
import Synchronization

public final class ModelPreload: Sendable {
    /// The folder being loaded.
    public let directory: String
    private let loaded = DispatchGroup()
    private let outcome = Mutex<Result<SentenceEncoder, IBError>?>(nil)

    /// Starts loading the model in `directory` at once, on another thread.
    public init(directory: String) {
        self.directory = directory
        loaded.enter()
        DispatchQueue.global().async { [self] in
            defer { loaded.leave() }
            let result: Result<SentenceEncoder, IBError>
            do throws(IBError) {
                let encoder = try SentenceEncoder(directory: directory, threads: 1)
                encoder.mapPackedWeights()
                result = .success(encoder)
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
        }
    }

    /// The model, once loaded (waits for it); its loading error, if it failed.
    func encoder() throws(IBError) -> SentenceEncoder {
        loaded.wait()
        switch outcome.withLock({ $0 }) {
        case .success(let encoder): return encoder
        case .failure(let error): throw error
        case nil: throw IBError("the model in \(directory) was not loaded")
        }
    }
}
