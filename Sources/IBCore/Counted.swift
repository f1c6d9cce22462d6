// "1 book", "2 books": counts in messages agree with their nouns.

/// `n` and the noun for it: `singular` for exactly one, else `plural`
/// (default: the singular with an s).
public func counted(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(n) " + (n == 1 ? singular : plural ?? singular + "s")
}
