public enum URLFetch {
    public static func isURL(_ s: String) -> Bool {
        let lower = s.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }
    public static func fetch(_ url: String, options: ParseOptions) throws(ParseError) -> InputSource {
        throw ParseError("URLs are not supported yet")
    }
}
