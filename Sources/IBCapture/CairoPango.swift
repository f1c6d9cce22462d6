// cairo and pango, loaded with dlopen the first time a picture is drawn, so a
// plain capture never pays for them (nothing linked, no headers needed). Only
// the calls the PNG renderer uses are bound; pango shapes the text (CJK and
// mixed scripts included) through fontconfig.
#if canImport(Glibc)
import Glibc
#endif
import IBCore

typealias CPointer = UnsafeMutableRawPointer

/// The bound functions. `shared` loads them once; a missing library or symbol is one error naming it.
struct CairoPango: @unchecked Sendable {
    let imageSurfaceCreate: @convention(c) (Int32, Int32, Int32) -> CPointer?
    let create: @convention(c) (CPointer?) -> CPointer?
    let destroy: @convention(c) (CPointer?) -> Void
    let surfaceDestroy: @convention(c) (CPointer?) -> Void
    let surfaceFlush: @convention(c) (CPointer?) -> Void
    let surfaceStatus: @convention(c) (CPointer?) -> Int32
    let writeToPNG: @convention(c) (CPointer?, UnsafePointer<CChar>) -> Int32
    let imageSurfaceFromPNG: @convention(c) (UnsafePointer<CChar>) -> CPointer?
    let imageWidth: @convention(c) (CPointer?) -> Int32
    let imageHeight: @convention(c) (CPointer?) -> Int32
    let imageStride: @convention(c) (CPointer?) -> Int32
    let imageData: @convention(c) (CPointer?) -> UnsafeMutablePointer<UInt8>?
    let setSourceRGBA: @convention(c) (CPointer?, Double, Double, Double, Double) -> Void
    let rectangle: @convention(c) (CPointer?, Double, Double, Double, Double) -> Void
    let arc: @convention(c) (CPointer?, Double, Double, Double, Double, Double) -> Void
    let moveTo: @convention(c) (CPointer?, Double, Double) -> Void
    let lineTo: @convention(c) (CPointer?, Double, Double) -> Void
    let newPath: @convention(c) (CPointer?) -> Void
    let closePath: @convention(c) (CPointer?) -> Void
    let fill: @convention(c) (CPointer?) -> Void
    let stroke: @convention(c) (CPointer?) -> Void
    let setLineWidth: @convention(c) (CPointer?, Double) -> Void
    let setLineCap: @convention(c) (CPointer?, Int32) -> Void
    let save: @convention(c) (CPointer?) -> Void
    let restore: @convention(c) (CPointer?) -> Void
    let translate: @convention(c) (CPointer?, Double, Double) -> Void
    let scale: @convention(c) (CPointer?, Double, Double) -> Void
    let createLayout: @convention(c) (CPointer?) -> CPointer?
    let showLayout: @convention(c) (CPointer?, CPointer?) -> Void
    let fontFromString: @convention(c) (UnsafePointer<CChar>) -> CPointer?
    let fontFree: @convention(c) (CPointer?) -> Void
    let setFont: @convention(c) (CPointer?, CPointer?) -> Void
    let setText: @convention(c) (CPointer?, UnsafePointer<CChar>, Int32) -> Void
    let pixelSize: @convention(c) (CPointer?, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>) -> Void
    let baseline: @convention(c) (CPointer?) -> Int32
    let unref: @convention(c) (CPointer?) -> Void

    /// The libraries, loaded on first use; the failure (which library, which symbols) otherwise.
    static let shared: Result<CairoPango, IBError> = load()

    static func library() throws(IBError) -> CairoPango {
        try shared.get()
    }

    private static func load() -> Result<CairoPango, IBError> {
        var handles: [CPointer] = []
        for (names, package) in [(["libcairo.so.2"], "libcairo2"), (["libpango-1.0.so.0"], "libpango-1.0-0"),
                                 (["libpangocairo-1.0.so.0"], "libpangocairo-1.0-0"), (["libgobject-2.0.so.0"], "libglib2.0-0")] {
            guard let h = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else {
                let reason = dlerror().map { String(cString: $0) } ?? "not found"
                return .failure(IBError("drawing a picture needs \(names[0]) (Debian package \(package)): \(reason)"))
            }
            handles.append(h)
        }
        var missing: [String] = []
        func f<F>(_ name: String) -> F {
            for h in handles { if let p = dlsym(h, name) { return unsafeBitCast(p, to: F.self) } }
            missing.append(name)
            return unsafeBitCast(dlsym(handles[0], "cairo_version")!, to: F.self)  // never called: the load fails below
        }
        let b = CairoPango(
            imageSurfaceCreate: f("cairo_image_surface_create"), create: f("cairo_create"), destroy: f("cairo_destroy"),
            surfaceDestroy: f("cairo_surface_destroy"), surfaceFlush: f("cairo_surface_flush"), surfaceStatus: f("cairo_surface_status"),
            writeToPNG: f("cairo_surface_write_to_png"), imageSurfaceFromPNG: f("cairo_image_surface_create_from_png"),
            imageWidth: f("cairo_image_surface_get_width"), imageHeight: f("cairo_image_surface_get_height"),
            imageStride: f("cairo_image_surface_get_stride"), imageData: f("cairo_image_surface_get_data"),
            setSourceRGBA: f("cairo_set_source_rgba"), rectangle: f("cairo_rectangle"), arc: f("cairo_arc"),
            moveTo: f("cairo_move_to"), lineTo: f("cairo_line_to"), newPath: f("cairo_new_path"), closePath: f("cairo_close_path"),
            fill: f("cairo_fill"), stroke: f("cairo_stroke"), setLineWidth: f("cairo_set_line_width"), setLineCap: f("cairo_set_line_cap"),
            save: f("cairo_save"), restore: f("cairo_restore"), translate: f("cairo_translate"), scale: f("cairo_scale"),
            createLayout: f("pango_cairo_create_layout"), showLayout: f("pango_cairo_show_layout"),
            fontFromString: f("pango_font_description_from_string"), fontFree: f("pango_font_description_free"),
            setFont: f("pango_layout_set_font_description"), setText: f("pango_layout_set_text"),
            pixelSize: f("pango_layout_get_pixel_size"), baseline: f("pango_layout_get_baseline"), unref: f("g_object_unref"))
        if !missing.isEmpty { return .failure(IBError("cairo/pango lack \(missing.joined(separator: ", "))")) }
        return .success(b)
    }
}
