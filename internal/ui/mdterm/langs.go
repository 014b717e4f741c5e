package mdterm

import (
	"strings"
	"sync"
)

// Highlighting modes: most languages share the code lexer; a few have their own.
const (
	modeCode = iota
	modeHTML
	modeDiff
	modeCSS
	modeYAML
	modeTOML
	modeJSON
)

// lang says how to highlight one language.
type lang struct {
	mode      int
	comments  []string    // line comments
	blocks    [][2]string // block comments
	quotes    string      // quotes of one-line strings
	multi     string      // quotes of strings that may span lines
	triple    bool        // """ and ''' strings
	hashSpace bool        // '#' starts a comment only after a space
	vars      bool        // $name is a variable
	rawSingle bool        // no escapes in '...' (shell)
	caseFold  bool        // keywords in any case
	hashDir   bool        // #directives (C)
	lifetimes bool        // 'a is a lifetime, not a string (Rust)
	symbols   bool        // :name is a symbol (Ruby)
	identMore string      // more characters allowed in names

	keywords, types string // space-separated words
	once            sync.Once
	words           map[string]style
}

// word returns the style of a name: keyword, type or none.
func (l *lang) word(w string) style {
	l.once.Do(func() {
		l.words = make(map[string]style)
		for _, k := range strings.Fields(l.types) {
			l.words[k] = cType
		}
		for _, k := range strings.Fields(l.keywords) {
			l.words[k] = cKeyword
		}
	})
	if l.caseFold {
		w = strings.ToLower(w)
	}
	return l.words[w]
}

var cComments = []string{"//"}
var cBlocks = [][2]string{{"/*", "*/"}}
var hashComments = []string{"#"}

const (
	cKeywords = "auto break case char const continue default do double else enum extern float for goto " +
		"if inline int long register restrict return short signed sizeof static struct switch typedef " +
		"union unsigned void volatile while _Bool bool true false NULL"
	cTypes     = "size_t ssize_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t uintptr_t FILE"
	jsKeywords = "break case catch class const continue debugger default delete do else export extends " +
		"finally for function if import in instanceof let new return super switch this throw try typeof " +
		"var void while with yield async await of static get set null undefined true false NaN Infinity from as"
	jsTypes = "Array Object String Number Boolean Promise Map Set WeakMap Symbol Error JSON Math console " +
		"window document globalThis RegExp Date BigInt require module exports"
)

// langs maps language names (as in a fence's info string) to their lexers.
var langs = sync.OnceValue(func() map[string]*lang {
	goLang := &lang{comments: cComments, blocks: cBlocks, quotes: `"'`, multi: "`",
		keywords: "break case chan const continue default defer else fallthrough for func go goto if " +
			"import interface map package range return select struct switch type var",
		types: "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune " +
			"string uint uint8 uint16 uint32 uint64 uintptr any comparable true false nil iota append cap " +
			"clear close copy delete len make max min new panic print println recover"}
	python := &lang{comments: hashComments, quotes: `"'`, triple: true,
		keywords: "and as assert async await break class continue def del elif else except finally for " +
			"from global if import in is lambda nonlocal not or pass raise return try while with yield " +
			"match case None True False",
		types: "int float str bool list dict set frozenset tuple bytes object type print len range open " +
			"super self cls isinstance enumerate zip map filter sorted reversed sum any all abs repr iter " +
			"next Exception ValueError TypeError KeyError IndexError RuntimeError"}
	js := &lang{comments: cComments, blocks: cBlocks, quotes: `"'`, multi: "`", identMore: "$",
		keywords: jsKeywords, types: jsTypes}
	ts := &lang{comments: cComments, blocks: cBlocks, quotes: `"'`, multi: "`", identMore: "$",
		keywords: jsKeywords + " interface type enum implements namespace declare abstract readonly " +
			"private protected public keyof infer is asserts satisfies override module unique",
		types: jsTypes + " string number boolean any unknown never object bigint symbol Record " +
			"Partial Required Readonly Pick Omit"}
	rust := &lang{comments: cComments, blocks: cBlocks, quotes: `"`, lifetimes: true,
		keywords: "as async await break const continue crate dyn else enum extern false fn for if impl " +
			"in let loop match mod move mut pub ref return self Self static struct super trait true type " +
			"unsafe use where while union macro_rules",
		types: "bool char str u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 String Vec " +
			"Option Result Box Rc Arc Some None Ok Err HashMap HashSet"}
	c := &lang{comments: cComments, blocks: cBlocks, quotes: `"'`, hashDir: true,
		keywords: cKeywords, types: cTypes}
	cpp := &lang{comments: cComments, blocks: cBlocks, quotes: `"'`, hashDir: true,
		keywords: cKeywords + " alignas alignof and asm catch class constexpr consteval constinit " +
			"co_await co_return co_yield decltype delete explicit export friend mutable namespace new " +
			"noexcept not nullptr operator or override private protected public requires static_assert " +
			"static_cast dynamic_cast reinterpret_cast const_cast template this thread_local throw try " +
			"typeid typename using virtual final concept",
		types: cTypes + " std string vector map unordered_map set unique_ptr shared_ptr optional"}
	java := &lang{comments: cComments, blocks: cBlocks, quotes: `"'`, triple: true,
		keywords: "abstract assert boolean break byte case catch char class const continue default do " +
			"double else enum extends final finally float for goto if implements import instanceof int " +
			"interface long native new package private protected public return short static strictfp " +
			"super switch synchronized this throw throws transient try void volatile while var record " +
			"sealed permits yield null true false",
		types: "String Object Integer Long Double Boolean List Map Set ArrayList HashMap Optional System " +
			"Exception RuntimeException"}
	kotlin := &lang{comments: cComments, blocks: cBlocks, quotes: `"'`, triple: true,
		keywords: "as break class continue do else false for fun if in interface is null object package " +
			"return super this throw true try typealias typeof val var when while by catch constructor " +
			"finally get import init set where abstract annotation companion const data enum external " +
			"final infix inline inner internal lateinit noinline open operator out override private " +
			"protected public reified sealed suspend tailrec vararg",
		types: "Int Long Short Byte Double Float Boolean Char String Unit Any Nothing List MutableList Map " +
			"MutableMap Set Array println listOf mapOf setOf"}
	swift := &lang{comments: cComments, blocks: cBlocks, quotes: `"`, triple: true,
		keywords: "associatedtype class deinit enum extension fileprivate func import init inout internal " +
			"let open operator private protocol public rethrows static struct subscript typealias var " +
			"break case continue default defer do else fallthrough for guard if in repeat return switch " +
			"where while as catch false is nil super self Self throw throws true try async await some any " +
			"actor mutating override final lazy weak unowned convenience required",
		types: "Int Double Float Bool String Character Array Dictionary Set Optional Void Error print"}
	ruby := &lang{comments: hashComments, quotes: `"'`, symbols: true, identMore: "?!",
		keywords: "BEGIN END alias and begin break case class def defined? do else elsif end ensure false " +
			"for if in module next nil not or redo rescue retry return self super then true undef unless " +
			"until when while yield require require_relative attr_accessor attr_reader attr_writer private " +
			"protected public lambda proc puts raise",
		types: "Array Hash String Integer Float Symbol Proc Struct Comparable Enumerable Kernel Object"}
	php := &lang{comments: []string{"//", "#"}, blocks: cBlocks, quotes: `"'`, vars: true,
		keywords: "abstract and array as break callable case catch class clone const continue declare " +
			"default do echo else elseif empty enum extends final finally fn for foreach function global " +
			"goto if implements include include_once instanceof interface isset list match namespace new " +
			"or print private protected public readonly require require_once return static switch throw " +
			"trait try unset use var while xor yield null true false self parent",
		types: "int float bool string void mixed object iterable never Exception"}
	sh := &lang{comments: hashComments, hashSpace: true, quotes: `"'`, multi: "`", vars: true, rawSingle: true,
		keywords: "if then else elif fi case esac for select while until do done in function time " +
			"return exit break continue local export readonly declare typeset unset shift source alias " +
			"set trap eval exec",
		types: "echo printf read cd pwd test true false kill wait"}
	sql := &lang{comments: []string{"--"}, blocks: cBlocks, quotes: `'"`, caseFold: true,
		keywords: "select from where and or not insert into values update set delete create table drop " +
			"alter add column index primary key foreign references join inner left right outer full cross " +
			"on as group by order having limit offset union all distinct case when then else end is null " +
			"like ilike in between exists with returning default constraint unique check view trigger " +
			"begin commit rollback transaction if replace asc desc",
		types: "int integer bigint smallint serial bigserial text varchar char boolean bool date time " +
			"timestamp timestamptz float real double numeric decimal json jsonb blob uuid count sum avg " +
			"min max coalesce now true false"}
	yaml := &lang{mode: modeYAML, comments: hashComments, hashSpace: true, quotes: `"'`,
		keywords: "true false null yes no True False TRUE FALSE Null NULL"}
	toml := &lang{mode: modeTOML, comments: hashComments, quotes: `"'`, triple: true,
		keywords: "true false inf nan"}
	json := &lang{mode: modeJSON, comments: cComments, blocks: cBlocks, quotes: `"`,
		keywords: "true false null"}
	html := &lang{mode: modeHTML}
	css := &lang{mode: modeCSS, blocks: cBlocks, quotes: `"'`, identMore: "-"}
	diff := &lang{mode: modeDiff}

	m := map[string]*lang{}
	for names, l := range map[string]*lang{
		"go golang":                            goLang,
		"python py python3 py3 gyp":            python,
		"javascript js jsx mjs cjs node":       js,
		"typescript ts tsx mts cts":            ts,
		"rust rs":                              rust,
		"c h":                                  c,
		"cpp c++ cc cxx hpp hh hxx cu":         cpp,
		"java":                                 java,
		"kotlin kt kts":                        kotlin,
		"swift":                                swift,
		"ruby rb":                              ruby,
		"php":                                  php,
		"sh bash shell zsh ksh shellscript":    sh,
		"sql postgres postgresql mysql sqlite": sql,
		"yaml yml":                             yaml,
		"toml":                                 toml,
		"json jsonc json5 jsonl":               json,
		"html htm xml xhtml svg vue":           html,
		"css scss less":                        css,
		"diff patch udiff":                     diff,
	} {
		for _, name := range strings.Fields(names) {
			m[name] = l
		}
	}
	return m
})
