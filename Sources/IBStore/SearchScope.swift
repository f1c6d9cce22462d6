// The part of the library a search may read, as one value the queries share.
import IBCore

/// Books to search, each with the last page a chunk may end on (nil: the whole
/// book). A chunk is in scope when its book is listed and it ends on or before
/// that page, so a chunk spanning pages 5-6 is outside at page 5. Queries take
/// `SearchScope?`: nil is the whole library without limits, which they read
/// without joining the scope at all.
public struct SearchScope: Sendable, Equatable {
    public struct Book: Sendable, Equatable {
        public var id: String
        public var lastPage: Int?
        public init(id: String, lastPage: Int?) { self.id = id; self.lastPage = lastPage }
    }

    public let books: [Book]
    /// {book_id: last page or null}: the form ibvec_knn's scope argument and
    /// json_each read, made once since every query of a search binds it.
    let json: String

    public init(_ books: [Book]) {
        self.books = books
        var object = JSONObject()
        for book in books { object[book.id] = JSON(book.lastPage) }
        json = JSON.object(object).serialized
    }
}
