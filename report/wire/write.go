package wire

import (
	"errors"
	"io"
)

// A ReportWriter writes one Report as it goes: its version and tool when
// it is made, then each finding, then the summary. It holds no finding
// once written, so a report of a million findings streams.
type ReportWriter struct {
	e       *Encoder
	list    string // the array of the document being written: "problems", then "findings"
	version int
}

// NewReportWriter starts a Report of the given version by tool.
func NewReportWriter(w io.Writer, version int, tool Tool) *ReportWriter {
	e := NewEncoder(w, Indented)
	e.BeginObject()
	e.IntField("version", version)
	e.Key("tool")
	e.tool(&tool)
	return &ReportWriter{e: e, version: version}
}

// open starts the array name unless it is the one being written, ending
// the one before: the document's arrays come in a fixed order.
func (r *ReportWriter) open(name string) {
	if r.list == name || name == "problems" && r.version < 2 {
		return
	}
	if r.list != "" {
		r.e.EndArray()
	}
	r.e.Key(name)
	r.e.BeginArray()
	r.list = name
}

// Problem writes the next problem; every problem comes before the first
// finding.
func (r *ReportWriter) Problem(p *Problem) error {
	if r.list == "findings" {
		return errors.New("wire: a problem after the findings")
	}
	r.open("problems")
	r.e.problem(p)
	return r.e.err
}

// Finding writes the next finding.
func (r *ReportWriter) Finding(f *Finding) error {
	if r.list == "" {
		r.open("problems")
	}
	r.open("findings")
	r.e.finding(f)
	return r.e.err
}

// A FindingBatch holds findings encoded as ReportWriter.Finding writes
// them after the first one, for a report that encodes batches of its
// findings on several goroutines and writes them in order with
// ReportWriter.Findings: the same bytes as one Finding after the other.
type FindingBatch struct {
	e Encoder
}

// NewBatch returns an empty batch of r's findings; r has written the
// first finding with Finding. The batch is the caller's: it may fill it
// on another goroutine than r's.
func (r *ReportWriter) NewBatch() *FindingBatch {
	return &FindingBatch{e: Encoder{depth: r.e.depth, indent: r.e.indent, html: r.e.html, hold: true}}
}

// Finding adds a finding to the batch.
func (b *FindingBatch) Finding(f *Finding) { b.e.finding(f) }

// Bytes are the batch's findings, encoded; valid until the batch
// changes.
func (b *FindingBatch) Bytes() []byte { return b.e.b }

// Reset empties the batch, keeping its room.
func (b *FindingBatch) Reset() { b.e.b = b.e.b[:0] }

// Findings writes findings a FindingBatch of r encoded (its Bytes, or
// several batches' one after the other) after those written, as Finding
// would have written each of them.
func (r *ReportWriter) Findings(p []byte) error {
	if r.list != "findings" {
		return errors.New("wire: a batch of findings before the first")
	}
	if len(p) == 0 || r.e.Flush() != nil {
		return r.e.err
	}
	_, r.e.err = r.e.w.Write(p)
	return r.e.err
}

// Close writes the summary and ends the document; findings is an array
// even when there was none.
func (r *ReportWriter) Close(s *Summary) error {
	if r.list == "" {
		r.open("problems")
	}
	r.open("findings")
	r.e.EndArray()
	r.e.Key("summary")
	r.e.summary(s)
	r.e.EndObject()
	r.e.Raw("\n")
	return r.e.Flush()
}

// A SARIFWriter writes a SARIF log of one run as it goes: everything but
// the run's results when it is made, then each result, then the rest.
type SARIFWriter struct {
	e   *Encoder
	run *SARIFRun
}

// NewSARIFWriter starts log, whose one run's Results it leaves out: they
// are written by Result.
func NewSARIFWriter(w io.Writer, log *SARIFLog) *SARIFWriter {
	e := NewEncoder(w, Indented)
	e.BeginObject()
	e.StringField("$schema", log.Schema)
	e.StringField("version", log.Version)
	e.Key("runs")
	e.BeginArray()
	run := &log.Runs[0]
	e.BeginObject()
	e.sarifRunHead(run)
	e.Key("results")
	e.BeginArray()
	return &SARIFWriter{e: e, run: run}
}

// Result writes the next result.
func (s *SARIFWriter) Result(r *SARIFResult) error {
	s.e.sarifResult(r)
	return s.e.err
}

// Close ends the results, the run and the log.
func (s *SARIFWriter) Close() error {
	s.e.EndArray()
	s.e.sarifRunTail(s.run)
	s.e.EndObject()
	s.e.EndArray()
	s.e.EndObject()
	s.e.Raw("\n")
	return s.e.Flush()
}
