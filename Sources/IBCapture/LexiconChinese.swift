// The Simplified Chinese grammar's words, as data. The grammar
// (GrammarChinese.swift) reads these tables and holds no word lists of its
// own. Lists are tried in order where the first match wins, so order matters.

enum ChineseLexicon {
    // MARK: keywords that open a header (摘录：…, 笔记《X》：…)

    static let quoteKeywords = ["摘录", "引用", "摘抄", "书摘", "金句", "划线", "语录", "名句", "摘句", "引文", "句子", "摘"]
    static let noteKeywords = ["读书笔记", "笔记", "想法", "感想", "思考", "心得", "备注", "随想", "感悟", "批注", "记录", "随笔", "评论", "体会", "注"]
    static let questionKeywords = ["问题", "疑问", "提问", "不懂", "不明白", "困惑", "问"]
    /// The intent a header gives, tried in this order: it starts with one of the
    /// keywords, or (a header of at most `maxHeader` characters, "今天的摘录：")
    /// contains one of `anywhere`; the one-character keywords (摘, 注, 问) would match too much there.
    static let headerIntents: [(intent: Capture.Intent, keywords: [String], anywhere: [String], maxHeader: Int)] = [
        (.quote, quoteKeywords, ["摘录", "引用", "摘抄", "书摘", "金句", "划线"], 12),
        (.question, questionKeywords, ["问题", "疑问"], 12),
        (.note, noteKeywords, ["笔记", "想法", "感想", "思考", "心得", "感悟"], 14),
    ]
    /// Removed from the header, the longest that occurs.
    static let keywordsLongestFirst = (quoteKeywords + noteKeywords + questionKeywords).sorted { $0.count > $1.count }
    static let planKeywords = ["计划", "目标", "阅读计划", "读书计划"]
    /// Dropped from a header around the book: "关于《X》的笔记".
    static let headerTopicWords = ["关于", "对于", "有关"]
    static let headerPossessive = "的"
    /// Around a page at the end of a note: "……（第12页）", "—— 第12页".
    static let pageOpeners: Set<Character> = ["（", "(", "—", "-", " "]
    static let pageClosers: Set<Character> = ["）", ")", " "]

    // MARK: plans

    /// A line that is a plan: it starts with one of these, or contains a due verb.
    static let planOpenings = ["计划", "目标", "打算在", "准备在", "争取"]
    static let planDueVerbs = ["前读完", "之前读完", "以前读完", "前看完", "之前看完", "前读", "之前读"]
    /// Dropped from the start of a plan, each in turn.
    static let planLeads = ["计划：", "计划:", "计划", "目标：", "目标:", "目标", "打算", "准备", "争取", "要"]
    /// The date ends before one of these: "2027年1月31日前读完".
    static let dueEnds = ["之前", "以前", "为止", "前"]
    /// Dropped before the date: "在月底前".
    static let dueLeads = ["在", "于"]
    /// The verb before the books; the two-character ones are dropped whole.
    static let planVerbs = ["读完", "看完", "读", "看"]
    static let planVerbsWhole = ["读完", "看完"]
    /// "每天30页", "每天读30页".
    static let daily = "每天"
    static let dailyVerbs: Set<Character> = ["读", "看", " "]

    // MARK: books

    /// 正在读《人类简史》, 想读《奥德赛》: the opening and the status it gives.
    static let bookOpenings: [(String, String)] = [
        ("我正在读", "reading"), ("正在读", "reading"), ("最近在读", "reading"), ("我在读", "reading"), ("在读", "reading"), ("开始读", "reading"),
        ("刚开始读", "reading"), ("开始看", "reading"), ("正在看", "reading"), ("在看", "reading"), ("重读", "reading"), ("开读", "reading"),
        ("我想读", "want"), ("想读", "want"), ("想看", "want"), ("打算读", "want"), ("待读", "want"), ("想要读", "want"), ("准备读", "want"),
        ("要读", "want"), ("以后读", "want"), ("添加", "added"), ("加入", "added"), ("新书", "added"), ("买了", "added"), ("入手", "added"),
        ("借了", "added"), ("收藏", "want"),
    ]
    /// After 《X》, dropped from the end of what may be the author: "《X》余华著".
    static let authorSuffixes = ["著", "写的", "的书", "了", "啦", "呢", "吧", "这本书", "这本"]
    /// After 《X》, words that are no author.
    static let notAuthors: Set<String> = ["了", "啦", "呢", "吧", "今天", "现在", "又"]
    /// Around a title without 《》: "正在读：这本书 X 了".
    static let titleLeads = [":", "：", "这本书", "书"]
    static let titleSuffixes = ["这本书", "了"]
    /// "《X》by Y": an author named the English way.
    static let englishAuthorLead = "by "
    /// "作者：X" after a title.
    static let authorMarkers = ["作者：", "作者:", "作者"]

    // MARK: progress

    /// 读完了《X》: finished, unless it is a plan (前读完) or a page (读完第20页).
    static let finishedVerbs = ["读完", "看完", "读毕", "已读完", "完成了"]
    static let notFinished = ["前读完", "之前读完", "页"]
    /// Removed from a finished line to leave the book: "终于读完了这本书！".
    static let finishedFillers = ["终于", "今天", "刚刚", "已经", "我", "已读完", "读完了", "读完", "看完了", "看完", "读毕", "完成了", "这本书", "了", "！", "!"]
    /// 读了20页, 看了30页《X》.
    static let pagesReadVerbs = ["读了", "看了", "翻了", "又读了", "共读了"]
    /// A percentage counts as progress with one of these: "进度40%".
    static let percentContext = ["读", "看", "进度"]
    static let percentWord = "百分之"
    static let half = "一半"
    /// Before a page reached: "我今天读到了第120页". Leads each in turn, then the first verb.
    static let positionLeads = ["我", "今天", "已经", "现在", "目前", "刚", "才"]
    static let positionVerbs = ["读到了", "读到", "看到了", "看到", "翻到", "到了", "到", "在", "进度", "进度：", "进度:", "停在", "读至", "书签"]
    /// Removed before "读了20页" to leave the book.
    static let pagesReadFillers = ["我", "今天", "刚刚", "刚", "又", "共", "已经", "今晚", "昨天"]
    /// A "book" with one of these (and 8 characters or fewer) is a sentence.
    static let notInBookNames = ["读", "看", "页", "今天", "我", "了", "这本书", "章"]
    /// A line that is a question: it ends in ？ or starts with one of these.
    static let questionOpenings = ["为什么", "什么是", "怎么", "如何", "作者为什么"]

    // MARK: dates (DateGrammarChinese.swift)

    /// Dropped around a date, the first that matches: "在月底之前".
    static let dateSuffixes = ["之前", "以前", "前", "为止", "截止", "结束"]
    static let datePrefixes = ["在", "于", "到", "截至", "截止到", "截止"]
    /// Dates that are a word of their own.
    static let namedDays: [String: RelativeDay] = [
        "今天": .days(0), "今晚": .days(0), "今日": .days(0),
        "明天": .days(1), "明日": .days(1), "明晚": .days(1), "后天": .days(2), "大后天": .days(3),
        "下周": .days(7), "下星期": .days(7), "下礼拜": .days(7), "一周后": .days(7), "一周内": .days(7),
        "下个月": .months(1), "下月": .months(1),
        "月底": .endOfMonth(0), "本月底": .endOfMonth(0), "这个月底": .endOfMonth(0), "月末": .endOfMonth(0), "本月末": .endOfMonth(0),
        "这个月月底": .endOfMonth(0), "本月": .endOfMonth(0), "这个月": .endOfMonth(0),
        "下个月底": .endOfMonth(1), "下月底": .endOfMonth(1), "下个月月底": .endOfMonth(1), "下月末": .endOfMonth(1),
        "年底": .endOfYear(0), "今年年底": .endOfYear(0), "年末": .endOfYear(0), "今年底": .endOfYear(0), "今年": .endOfYear(0),
        "明年年底": .endOfYear(1), "明年底": .endOfYear(1),
        "周末": .endOfWeek(0), "这周末": .endOfWeek(0), "本周末": .endOfWeek(0), "这个周末": .endOfWeek(0),
        "下周末": .endOfWeek(1), "下个周末": .endOfWeek(1),
    ]
    /// "三天后", "两周内": a count, a unit (the longest first), then one of these.
    static let durationEnds: Set<Character> = ["后", "内"]
    static let durationUnits: [(String, DateUnit)] = [
        ("个星期", .days(7)), ("个礼拜", .days(7)), ("个月", .months(1)), ("星期", .days(7)), ("礼拜", .days(7)),
        ("天", .days(1)), ("日", .days(1)), ("周", .days(7)), ("月", .months(1)), ("年", .months(12)),
    ]
    /// Before a weekday: "下下周五" is two weeks on, "下周五" one, "这周五"/"本周五" this week.
    static let weekModifiers: [(String, Int)] = [("下下", 2), ("下个", 1), ("下", 1), ("这个", 0), ("这", 0), ("本", 0)]
    static let weekWords = ["周", "星期", "礼拜"]
    /// Monday is 1; 周日 and 周天 are Sunday.
    static let weekdays: [Character: Int] = ["一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7,
                                             "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7]

    // MARK: pages and chapters

    /// Title marks: 《人类简史》, 〈短篇〉.
    static let titleOpeners: Set<Character> = ["《", "〈"]
    static let titleClosers: Set<Character> = ["》", "〉"]
    static let ordinal: Character = "第"
    static let page: Character = "页"
    static let negative: Set<Character> = ["-", "−", "–", "负"]
    static let rangeSeparators: Set<Character> = ["-", "–", "~", "至", "到"]
    /// 第3章, 第三节, 第二回, 第一部分.
    static let chapterUnits: Set<Character> = ["章", "节", "回", "部"]
    static let pageCountPrefix: Character = "共"
    /// Words that are no book.
    static let notBookNames: Set<String> = ["的"]
}
