// PDF through poppler-glib: one page record per physical page, in order.
// Each page carries its printed label ("iv", "23") when the PDF defines page
// labels. Words hyphenated across a line end are joined again. Title and
// authors come from the document info. A page whose text cannot be extracted
// is reported and kept with empty text, so page numbers stay true. A PDF that
// needs a password is a clear `password_protected` error.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

enum PDFParser {
    static func parse(_ bytes: InputBytes, options: ParseOptions) throws(ParseError) -> ParsedBook {
        try P.load()
        silencePoppler()
        // Poppler's text extraction makes and frees many small objects: keep freed memory in the
        // process instead of returning it to the kernel after every page.
        // (mallopt from <malloc.h>: M_TRIM_THRESHOLD -1, M_TOP_PAD -2, M_MMAP_THRESHOLD -3.)
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") {
            let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
            _ = mallopt(-1, 512 << 20)
            _ = mallopt(-2, 64 << 20)
            _ = mallopt(-3, 64 << 20)
            _ = mallopt(1, 160)  // M_MXFAST: more small frees stay in fast bins
        }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(ParseError) in try parse(buffer, file: bytes.fileDescriptor, options: options) }
    }

    /// A large PDF (mapped, with its file open) is read by poppler from the file in
    /// small buffers, so that a broken cross-reference table, which poppler rebuilds
    /// by scanning every byte, does not bring the whole file into memory.
    private static func parse(_ buffer: UnsafeBufferPointer<UInt8>, file: Int32?, options: ParseOptions) throws(ParseError) -> ParsedBook {
        let forced = options.pdfWorkers
        let gbytes = P.g_bytes_new_static(buffer.baseAddress, UInt(buffer.count))
        defer { P.g_bytes_unref(gbytes) }
        var error: UnsafeMutableRawPointer? = nil
        // poppler owns (and closes) the descriptor it is given: a copy of the file's.
        let copy = file.map { fcntl($0, F_DUPFD_CLOEXEC, 0) } ?? -1
        let opened = if copy >= 0, let fromFD = P.poppler_document_new_from_fd { fromFD(copy, nil, &error) }
                     else { P.poppler_document_new_from_bytes(gbytes, nil, &error) }
        if copy >= 0 && P.poppler_document_new_from_fd == nil { close(copy) }
        guard let document = opened else {
            var message = "corrupt or truncated PDF"
            if let error {
                // GError: { GQuark domain; gint code; gchar *message }; POPPLER_ERROR_ENCRYPTED is 1.
                if error.load(as: UInt32.self) == P.poppler_error_quark() && error.load(fromByteOffset: 4, as: Int32.self) == 1 {
                    P.g_error_free(error)
                    throw ParseError("the PDF is encrypted and needs a password", kind: "password_protected")
                }
                if let m = error.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self) { message += " (\(String(cString: m)))" }
                P.g_error_free(error)
            }
            throw ParseError(message)
        }
        defer { P.g_object_unref(UnsafeMutableRawPointer(document)) }

        var book = ParsedBook(format: .pdf)
        book.title = take(P.poppler_document_get_title(document))
        if let author = take(P.poppler_document_get_author(document)) {
            book.authors = author.split(whereSeparator: { $0 == ";" || $0 == "&" }).map { String($0).collapsedWhitespace }.filter { !$0.isEmpty }
        }
        let count = Int(P.poppler_document_get_n_pages(document))
        // Pages are extracted by worker processes (fork: poppler is not shared between threads
        // without its global locks, and a crash on a hostile page only loses that worker's pages),
        // each with a contiguous run of pages; in-process when there is one CPU, few pages, or
        // other threads in this process.
        // Default: one worker per CPU (at most 8) for a PDF of 64 pages or more. Measured on
        // 2 CPUs: sherlock.pdf (288 pages) takes 148 ms in-process and 89 ms with 2 workers,
        // for 0.14 s of CPU either way (copy-on-write costs little). IB_PARSE_JOBS=N sets N.
        var workers = count >= 64 ? min(Cores.available, 8, count) : 1
        if let forced { workers = min(forced, max(count, 1)) }
        if workers > 1 && !isSingleThreaded() { workers = 1 }
        var jobs: [PageJob] = []
        for w in 0..<workers {
            jobs.append(PageJob(gbytes: gbytes, pages: Array((count * w / workers)..<(count * (w + 1) / workers)), ocr: options.ocr))
        }
        if workers > 1 {
            runInWorkerProcesses(jobs, document: document)
        } else {
            jobs[0].run(document: document)
        }
        var labels = [String?](repeating: nil, count: count)
        book.pages = [ParsedPage](repeating: ParsedPage(text: ""), count: count)
        var failedPages: [Int] = []
        var scanned: [Int] = []
        for job in jobs {
            for (k, i) in job.pages.enumerated() {
                labels[i] = job.labels[k]
                if let text = job.texts[k] { book.pages[i].text = text } else { failedPages.append(i + 1) }
                if job.needsOCR[k] { scanned.append(i) }
            }
        }
        if !scanned.isEmpty {
            try ScanJob.recognize(scanned, in: &book, document: document, gbytes: gbytes, options: options)
        }
        failedPages.sort()
        if !failedPages.isEmpty {
            book.warnings.append("\(failedPages.count == 1 ? "page" : "pages") \(ranges(failedPages)): text could not be extracted; kept with empty text")
        }
        // Sections from the outline's top level: the entry whose page a page is on or after.
        let outline = outlineStarts(document)
        if !outline.isEmpty {
            var next = 0
            var current: (index: Int, title: String)? = nil
            for i in 0..<book.pages.count {
                while next < outline.count && outline[next].page <= i { current = (next, outline[next].title); next += 1 }
                book.pages[i].sectionIndex = current?.index
                book.pages[i].sectionTitle = current?.title
            }
        }
        // Without /PageLabels poppler numbers pages 1, 2, 3: that is no printed label.
        let defined = labels.enumerated().contains { $0.element != nil && $0.element != String($0.offset + 1) }
        if defined {
            for i in 0..<book.pages.count { book.pages[i].label = labels[i].flatMap { $0.isEmpty ? nil : $0 } }
        }
        return book
    }

    /// Top-level outline entries with the 0-based page they point to, in page order.
    private static func outlineStarts(_ document: OpaquePointer) -> [(page: Int, title: String)] {
        guard let iter = P.poppler_index_iter_new(document) else { return [] }
        defer { P.poppler_index_iter_free(iter) }
        var entries: [(page: Int, title: String)] = []
        repeat {
            guard let action = P.poppler_index_iter_get_action(iter) else { continue }
            defer { P.poppler_action_free(action) }
            // PopplerActionGotoDest: { type; gchar *title; PopplerDest *dest }; POPPLER_ACTION_GOTO_DEST is 2.
            // PopplerDest: { type; int page_num; double left, bottom, right, top, zoom; gchar *named_dest; ... }; POPPLER_DEST_NAMED is 9.
            guard action.load(as: Int32.self) == 2, let dest = action.load(fromByteOffset: 16, as: UnsafeMutableRawPointer?.self) else { continue }
            var page = Int(dest.load(fromByteOffset: 4, as: Int32.self))
            if dest.load(as: Int32.self) == 9, let name = dest.load(fromByteOffset: 48, as: UnsafePointer<CChar>?.self),
               let found = P.poppler_document_find_dest(document, name) {
                page = Int(found.load(fromByteOffset: 4, as: Int32.self))
                P.poppler_dest_free(found)
            }
            let title = action.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self).map { String(cString: $0).collapsedWhitespace } ?? ""
            if page >= 1 && !title.isEmpty { entries.append((page - 1, title)) }
        } while P.poppler_index_iter_next(iter) != 0 && entries.count < 100_000
        return entries.sorted { $0.page < $1.page }
    }

    /// The pages one thread extracts: text (nil when it failed) and label.
    final class PageJob {
        let gbytes: OpaquePointer?
        let pages: [Int]
        let ocr: OCRMode
        var texts: [String?] = []
        var labels: [String?] = []
        /// Whether each page is to be OCR'd (--ocr always, or a scanned page under auto).
        var needsOCR: [Bool] = []
        init(gbytes: OpaquePointer?, pages: [Int], ocr: OCRMode = .never) { self.gbytes = gbytes; self.pages = pages; self.ocr = ocr }

        func run(document given: OpaquePointer?) {
            var document = given
            if document == nil { document = P.poppler_document_new_from_bytes(gbytes, nil, nil) }
            defer { if given == nil, let document { P.g_object_unref(UnsafeMutableRawPointer(document)) } }
            texts.reserveCapacity(pages.count); labels.reserveCapacity(pages.count)
            for i in pages {
                guard let document, let page = P.poppler_document_get_page(document, Int32(i)) else {
                    texts.append(nil); labels.append(nil); needsOCR.append(ocr == .always); continue
                }
                labels.append(take(P.poppler_page_get_label(page)))
                if let raw = P.poppler_page_get_text(page) {
                    let length = strlen(raw)
                    texts.append(raw.withMemoryRebound(to: UInt8.self, capacity: length) {
                        joinHyphenation(UnsafeBufferPointer(start: $0, count: length))
                    })
                    P.g_free(raw)
                } else {
                    texts.append(nil)
                }
                needsOCR.append(ocr == .always || (ocr == .auto && ScanJob.isScanned(page, text: texts.last ?? nil)))
                P.g_object_unref(UnsafeMutableRawPointer(page))
            }
        }
    }

    /// True when this process runs one thread (fork is only safe then).
    static func isSingleThreaded() -> Bool {
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else { return false }
        let status = String(decoding: buffer[..<n], as: UTF8.self)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }) else { return false }
        return line.dropFirst(8).trimmingPrefix(while: { $0 == " " || $0 == "\t" }) == "1"
    }

    /// Runs each job in a forked child that shares the open document (copy-on-write); per page
    /// it sends [index][label or none][text or none (failed)][needs OCR 0/1]. A job whose child
    /// cannot start runs here; pages a crashed child did not send stay failed (nil).
    static func runInWorkerProcesses(_ jobs: [PageJob], document: OpaquePointer) {
        let received = WorkerProcesses.run(shares: jobs.count) { share, send in
            let job = jobs[share]
            job.run(document: document)
            var record = WorkerRecord()
            for (k, i) in job.pages.enumerated() {
                record.put(Int32(i)); record.put(job.labels[k]); record.put(job.texts[k]); record.put(job.needsOCR[k] ? 1 : 0)
            }
            send(record.bytes)
        }
        for (job, bytes) in zip(jobs, received) {
            guard let bytes else { job.run(document: document); continue }
            var texts = [String?](repeating: nil, count: job.pages.count)
            var labels = [String?](repeating: nil, count: job.pages.count)
            var needsOCR = [Bool](repeating: job.ocr == .always, count: job.pages.count)
            let first = job.pages.first ?? 0
            var reader = WorkerRecordReader(bytes)
            while let i = reader.int32(), let label = reader.string(), let text = reader.string(), let flag = reader.int32() {
                let k = Int(i) - first
                guard k >= 0 && k < texts.count else { break }
                labels[k] = label; texts[k] = text; needsOCR[k] = flag == 1
            }
            job.texts = texts
            job.labels = labels
            job.needsOCR = needsOCR
        }
    }

    /// "3, 7-9, 12" for [3, 7, 8, 9, 12].
    static func ranges(_ numbers: [Int]) -> String {
        var parts: [String] = []
        var i = 0
        while i < numbers.count {
            var j = i
            while j + 1 < numbers.count && numbers[j + 1] == numbers[j] + 1 { j += 1 }
            parts.append(i == j ? "\(numbers[i])" : "\(numbers[i])-\(numbers[j])")
            i = j + 1
        }
        return parts.joined(separator: ", ")
    }

    fileprivate static func take(_ p: UnsafeMutablePointer<CChar>?) -> String? {
        guard let p else { return nil }
        defer { P.g_free(p) }
        let s = String(cString: p).collapsedWhitespace
        return s.isEmpty ? nil : s
    }

    /// Page text with line-end hyphenation undone ("misunder-\nstanding" -> "misunderstanding"),
    /// form feeds dropped, trailing spaces trimmed from lines.
    static func joinHyphenation(_ b: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        let n = b.count
        @inline(__always) func isLower(_ at: Int) -> Bool {
            guard at < n else { return false }
            let c = b[at]
            if c >= 0x61 && c <= 0x7A { return true }
            // Latin-1 supplement and Latin Extended lower-case letters (UTF-8 lead 0xC3..0xC5).
            if c == 0xC3, at + 1 < n { return b[at + 1] >= 0x9F }
            return c == 0xC4 || c == 0xC5
        }
        @inline(__always) func isUpper(_ at: Int) -> Bool {
            guard at < n else { return false }
            return b[at] >= 0x41 && b[at] <= 0x5A
        }
        while i < n {
            // Copy the run of ordinary bytes at once.
            var runEnd = i
            while runEnd < n {
                let c = b[runEnd]
                if c == 0x0A || c == 0x0C || c == 0x2D || c == 0xE2 || c == 0xC2 { break }
                runEnd += 1
            }
            if runEnd > i { out.append(contentsOf: UnsafeBufferPointer(rebasing: b[i..<runEnd])); i = runEnd; continue }
            let c = b[i]
            if c == 0x0C { i += 1; continue }
            // A hyphen (ASCII, U+2010 or soft hyphen U+00AD) at a line end, between letters.
            var hyphenLength = 0
            if c == 0x2D { hyphenLength = 1 }
            else if c == 0xE2 && i + 2 < n && b[i + 1] == 0x80 && b[i + 2] == 0x90 { hyphenLength = 3 }
            else if c == 0xC2 && i + 1 < n && b[i + 1] == 0xAD { hyphenLength = 2 }
            if hyphenLength > 0 {
                var j = i + hyphenLength
                while j < n && b[j] == 0x20 { j += 1 }
                if j < n && b[j] == 0x0A, let last = out.last, (last >= 0x61 && last <= 0x7A) || (last >= 0x41 && last <= 0x5A) || last >= 0x80 {
                    var k = j + 1
                    while k < n && b[k] == 0x20 { k += 1 }
                    if isUpper(k) && hyphenLength == 1 {
                        // A compound with a capital second half ("Franco-\nPrussian"): keep the hyphen, join the word.
                        var end = k
                        while end < n && b[end] != 0x20 && b[end] != 0x0A { end += 1 }
                        out.append(0x2D)
                        out.append(contentsOf: b[k..<end])
                        i = end
                        if i < n && b[i] == 0x20 { i += 1 }
                        if i < n && b[i] != 0x0A { out.append(0x0A) }
                        continue
                    }
                    if isLower(k) {
                        // Join: the rest of the next line's first word comes here, then the line break.
                        var end = k
                        while end < n && b[end] != 0x20 && b[end] != 0x0A { end += 1 }
                        out.append(contentsOf: b[k..<end])
                        i = end
                        if i < n && b[i] == 0x20 { i += 1 }
                        if i < n && b[i] != 0x0A { out.append(0x0A) }
                        continue
                    }
                }
            }
            if c == 0x0A {
                while let last = out.last, last == 0x20 { out.removeLast() }
            }
            out.append(c)
            i += 1
        }
        while let last = out.last, last == 0x20 || last == 0x0A { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    /// Poppler reports syntax errors in broken files on its own; one line per input is ours to print.
    nonisolated(unsafe) private static var silenced = false
    private static func silencePoppler() {
        if silenced { return }
        silenced = true
        P.g_log_set_handler("Poppler", 0xFFFF_FFFC,  // every level (G_LOG_LEVEL_MASK)
                          { _, _, _, _ in }, nil)
    }
}

/// poppler-glib, loaded on first use: linking it would load ~60 libraries
/// (cairo, NSS, X11...) into every start of ib-parse, PDF or not.
enum P {
    nonisolated(unsafe) static var g_bytes_new_static: (@convention(c) (UnsafeRawPointer?, UInt) -> OpaquePointer?)!
    nonisolated(unsafe) static var g_bytes_unref: (@convention(c) (OpaquePointer?) -> Void)!
    typealias FromFD = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> OpaquePointer?
    nonisolated(unsafe) static var poppler_document_new_from_fd: FromFD?
    nonisolated(unsafe) static var poppler_document_new_from_bytes: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> OpaquePointer?)!
    nonisolated(unsafe) static var poppler_error_quark: (@convention(c) () -> UInt32)!
    nonisolated(unsafe) static var g_error_free: (@convention(c) (UnsafeMutableRawPointer?) -> Void)!
    nonisolated(unsafe) static var g_object_unref: (@convention(c) (UnsafeMutableRawPointer?) -> Void)!
    nonisolated(unsafe) static var poppler_document_get_title: (@convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?)!
    nonisolated(unsafe) static var poppler_document_get_author: (@convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?)!
    nonisolated(unsafe) static var poppler_document_get_n_pages: (@convention(c) (OpaquePointer?) -> Int32)!
    nonisolated(unsafe) static var poppler_document_get_page: (@convention(c) (OpaquePointer?, Int32) -> OpaquePointer?)!
    nonisolated(unsafe) static var poppler_page_get_label: (@convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?)!
    nonisolated(unsafe) static var poppler_page_get_text: (@convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?)!
    nonisolated(unsafe) static var g_free: (@convention(c) (UnsafeMutableRawPointer?) -> Void)!
    nonisolated(unsafe) static var g_log_set_handler: (@convention(c) (UnsafePointer<CChar>?, UInt32, (@convention(c) (UnsafePointer<CChar>?, UInt32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void)?, UnsafeMutableRawPointer?) -> UInt32)!
    nonisolated(unsafe) static var poppler_index_iter_new: (@convention(c) (OpaquePointer?) -> OpaquePointer?)!
    nonisolated(unsafe) static var poppler_index_iter_free: (@convention(c) (OpaquePointer?) -> Void)!
    nonisolated(unsafe) static var poppler_index_iter_get_action: (@convention(c) (OpaquePointer?) -> UnsafeMutableRawPointer?)!
    nonisolated(unsafe) static var poppler_index_iter_next: (@convention(c) (OpaquePointer?) -> Int32)!
    nonisolated(unsafe) static var poppler_action_free: (@convention(c) (UnsafeMutableRawPointer?) -> Void)!
    nonisolated(unsafe) static var poppler_document_find_dest: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> UnsafeMutableRawPointer?)!
    nonisolated(unsafe) static var poppler_dest_free: (@convention(c) (UnsafeMutableRawPointer?) -> Void)!
    nonisolated(unsafe) static var poppler_page_get_size: (@convention(c) (OpaquePointer?, UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?) -> Void)!
    nonisolated(unsafe) static var poppler_page_get_image_mapping: (@convention(c) (OpaquePointer?) -> UnsafeMutableRawPointer?)!
    nonisolated(unsafe) static var poppler_page_free_image_mapping: (@convention(c) (UnsafeMutableRawPointer?) -> Void)!
    nonisolated(unsafe) static var poppler_page_render: (@convention(c) (OpaquePointer?, OpaquePointer?) -> Void)!

    nonisolated(unsafe) private static var once = LoadOnce()

    /// Loads the library once; throws if it is not installed.
    static func load() throws(ParseError) { try once.run(loadPoppler) }

    private static func loadPoppler() throws(ParseError) {
        let poppler = try DynamicLibrary.open(["libpoppler-glib.so.8", "libpoppler-glib.so"],
                                              needed: "PDF support needs libpoppler-glib (apt-get install libpoppler-glib8)")
        var missing: [String] = []
        func symbol<T>(_ name: String) -> T? { poppler.symbol(name, &missing) }
        g_bytes_new_static = symbol("g_bytes_new_static")
        g_bytes_unref = symbol("g_bytes_unref")
        poppler_document_new_from_bytes = symbol("poppler_document_new_from_bytes")
        // Optional (poppler-glib 21.12 and later): without it a large PDF is read from its mapping.
        poppler_document_new_from_fd = poppler.optional("poppler_document_new_from_fd")
        poppler_error_quark = symbol("poppler_error_quark")
        g_error_free = symbol("g_error_free")
        g_object_unref = symbol("g_object_unref")
        poppler_document_get_title = symbol("poppler_document_get_title")
        poppler_document_get_author = symbol("poppler_document_get_author")
        poppler_document_get_n_pages = symbol("poppler_document_get_n_pages")
        poppler_document_get_page = symbol("poppler_document_get_page")
        poppler_page_get_label = symbol("poppler_page_get_label")
        poppler_page_get_text = symbol("poppler_page_get_text")
        g_free = symbol("g_free")
        g_log_set_handler = symbol("g_log_set_handler")
        poppler_index_iter_new = symbol("poppler_index_iter_new")
        poppler_index_iter_free = symbol("poppler_index_iter_free")
        poppler_index_iter_get_action = symbol("poppler_index_iter_get_action")
        poppler_index_iter_next = symbol("poppler_index_iter_next")
        poppler_action_free = symbol("poppler_action_free")
        poppler_document_find_dest = symbol("poppler_document_find_dest")
        poppler_dest_free = symbol("poppler_dest_free")
        poppler_page_get_size = symbol("poppler_page_get_size")
        poppler_page_get_image_mapping = symbol("poppler_page_get_image_mapping")
        poppler_page_free_image_mapping = symbol("poppler_page_free_image_mapping")
        poppler_page_render = symbol("poppler_page_render")
        try LoadOnce.require(missing, in: "libpoppler-glib")
    }
}
