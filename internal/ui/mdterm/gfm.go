package mdterm

// The GitHub extensions to CommonMark that the renderer shows: tables,
// strikethrough and task lists. goldmark has them in its extension package,
// but that package compiles several regular expressions when the program
// starts (about 0.8 ms), so these small versions, which need none, stand in.

import (
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// strikethroughParser parses ~~struck~~ text. Single tildes are left alone:
// in answers they mostly mean "about" (~5 ms).
type strikethroughParser struct{}

func (strikethroughParser) Trigger() []byte { return []byte{'~'} }

func (strikethroughParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, segment := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, strikeDelimiter{})
	if d == nil || d.OriginalLength != 2 || before == '~' {
		return nil
	}
	d.Segment = segment.WithStop(segment.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

func (strikethroughParser) CloseBlock(parent ast.Node, pc parser.Context) {}

type strikeDelimiter struct{}

func (strikeDelimiter) IsDelimiter(b byte) bool { return b == '~' }

func (strikeDelimiter) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char && opener.Length == closer.Length
}

func (strikeDelimiter) OnMatch(consumes int) ast.Node { return east.NewStrikethrough() }

// taskCheckBoxParser parses the "[ ]" or "[x]" that starts a list item.
type taskCheckBoxParser struct{}

func (taskCheckBoxParser) Trigger() []byte { return []byte{'['} }

func (taskCheckBoxParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	if parent.Parent() == nil || parent.Parent().FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	if _, ok := parent.Parent().(*ast.ListItem); !ok {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 3 || line[0] != '[' || line[2] != ']' {
		return nil
	}
	c := line[1]
	if c != ' ' && c != 'x' && c != 'X' {
		return nil
	}
	n := 3
	for n < len(line) && util.IsSpace(line[n]) {
		n++
	}
	block.Advance(n)
	return east.NewTaskCheckBox(c != ' ')
}

func (taskCheckBoxParser) CloseBlock(parent ast.Node, pc parser.Context) {}

// tableTransformer turns a paragraph whose second line is a delimiter row
// (| --- | :-: |) into a table.
type tableTransformer struct{}

func (tableTransformer) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := node.Lines()
	if lines.Len() < 2 {
		return
	}
	src := reader.Source()
	for i := 1; i < lines.Len(); i++ {
		delim := lines.At(i)
		aligns := tableDelimiter(delim.Value(src))
		if aligns == nil {
			continue
		}
		header := tableRow(lines.At(i-1), aligns, true, src)
		if header == nil || header.ChildCount() != len(aligns) {
			return
		}
		table := east.NewTable()
		table.Alignments = aligns
		table.SetPos(node.Pos())
		table.AppendChild(table, east.NewTableHeader(header))
		for j := i + 1; j < lines.Len(); j++ {
			table.AppendChild(table, tableRow(lines.At(j), aligns, false, src))
		}
		node.Lines().SetSliced(0, i-1)
		node.Parent().InsertAfter(node.Parent(), node, table)
		if node.Lines().Len() == 0 {
			node.Parent().RemoveChild(node.Parent(), node)
		} else {
			last := node.Lines().At(i - 2)
			last.Stop--
			node.Lines().Set(i-2, last)
		}
		return
	}
}

// tableDelimiter returns the alignments of a delimiter row, or nil.
func tableDelimiter(line []byte) []east.Alignment {
	if w, _ := util.IndentWidth(line, 0); w > 3 {
		return nil
	}
	pipe := false
	for _, b := range line {
		switch b {
		case '|', ':':
			pipe = true
		case '-', ' ', '\t', '\n', '\r':
		default:
			return nil
		}
	}
	if !pipe {
		return nil
	}
	cols := splitCells(line)
	var aligns []east.Alignment
	for _, col := range cols {
		col = util.TrimRightSpace(util.TrimLeftSpace(col))
		if len(col) == 0 {
			return nil
		}
		left, right := col[0] == ':', col[len(col)-1] == ':'
		dashes := col
		if left {
			dashes = dashes[1:]
		}
		if right && len(dashes) > 0 {
			dashes = dashes[:len(dashes)-1]
		}
		if len(dashes) == 0 {
			return nil
		}
		for _, b := range dashes {
			if b != '-' {
				return nil
			}
		}
		switch {
		case left && right:
			aligns = append(aligns, east.AlignCenter)
		case left:
			aligns = append(aligns, east.AlignLeft)
		case right:
			aligns = append(aligns, east.AlignRight)
		default:
			aligns = append(aligns, east.AlignNone)
		}
	}
	return aligns
}

// splitCells splits a row at its unescaped pipes, without the outer ones.
func splitCells(line []byte) [][]byte {
	line = util.TrimRightSpace(util.TrimLeftSpace(line))
	if len(line) > 0 && line[0] == '|' {
		line = line[1:]
	}
	if len(line) > 0 && line[len(line)-1] == '|' && (len(line) < 2 || line[len(line)-2] != '\\') {
		line = line[:len(line)-1]
	}
	var cells [][]byte
	start := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, line[start:i])
			start = i + 1
		}
	}
	return append(cells, line[start:])
}

// tableRow parses a row into cells; a body row gets as many cells as there
// are columns.
func tableRow(seg text.Segment, aligns []east.Alignment, header bool, src []byte) *east.TableRow {
	seg = seg.TrimLeftSpace(src)
	seg = seg.TrimRightSpace(src)
	line := seg.Value(src)
	row := east.NewTableRow(aligns)
	row.SetPos(seg.Start)
	pos, limit := 0, len(line)
	if limit > 0 && line[0] == '|' {
		pos++
	}
	if limit > pos && line[limit-1] == '|' && (limit < 2 || line[limit-2] != '\\') {
		limit--
	}
	for i := 0; pos < limit; i++ {
		if i >= len(aligns) && !header {
			break
		}
		end := pos
		for end < limit && line[end] != '|' {
			if line[end] == '\\' {
				end++
			}
			end++
		}
		end = min(end, limit)
		c := east.NewTableCell()
		if i < len(aligns) {
			c.Alignment = aligns[i]
		}
		cs := text.NewSegment(seg.Start+pos, seg.Start+end)
		cs = cs.TrimLeftSpace(src)
		cs = cs.TrimRightSpace(src)
		c.Lines().Append(cs)
		row.AppendChild(row, c)
		pos = end + 1
	}
	for row.ChildCount() < len(aligns) {
		row.AppendChild(row, east.NewTableCell())
	}
	return row
}
