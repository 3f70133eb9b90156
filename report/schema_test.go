package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report/wire"
	"github.com/crashsim/crashsim/source"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// reportSchema compiles the committed JSON Schema.
func reportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	sch, err := c.Compile("wire/crashsim-report.schema.json")
	if err != nil {
		t.Fatalf("compile the schema: %v", err)
	}
	return sch
}

func validate(t *testing.T, sch *jsonschema.Schema, doc []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("the report is not JSON: %v\n%s", err, doc)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("the report does not match wire/crashsim-report.schema.json: %v", err)
	}
}

// TestSchemaFixtures renders the JSON report of every fixture trace, under
// both models, and validates it against the committed schema.
func TestSchemaFixtures(t *testing.T) {
	sch := reportSchema(t)
	traces, err := filepath.Glob("../fixtures/traces/*/*.strace")
	if err != nil || len(traces) == 0 {
		t.Fatalf("no fixture traces: %v", err)
	}
	findings := 0
	for _, tr := range traces {
		t.Run(filepath.Base(filepath.Dir(tr))+"/"+filepath.Base(tr), func(t *testing.T) {
			s, err := parser.Open(tr, parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			res, err := check.Run(s, check.Options{Models: []model.Persistence{model.Posix, model.Ext4}})
			if err != nil {
				t.Fatal(err)
			}
			findings += res.Len()
			var b bytes.Buffer
			opt := Options{Models: []string{"posix", "ext4"}, Roots: []string{filepath.Dir(tr)}, Left: wire.Left{Ignored: 1}}
			if err := JSON(&b, res, opt); err != nil {
				t.Fatal(err)
			}
			validate(t, sch, b.Bytes())
		})
	}
	if findings == 0 {
		t.Error("no fixture gave a finding: the schema was never tried on one")
	}
}

// TestSchemaSource validates a report whose finding has a source, and
// checks that the schema rejects what it should.
func TestSchemaSource(t *testing.T) {
	sch := reportSchema(t)
	res := sample()
	f, _ := res.At(0)
	f.Source = &source.Location{File: "/src/app/save.go", Line: 42, Function: "main.save"}
	opt := Options{SrcRoot: "/src/app"}
	var b bytes.Buffer
	if err := JSON(&b, res, opt); err != nil {
		t.Fatal(err)
	}
	validate(t, sch, b.Bytes())
	if !bytes.Contains(b.Bytes(), []byte(`"file": "save.go"`)) {
		t.Errorf("source file not relative to the source root:\n%s", b.Bytes())
	}

	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	bad := func(change func(f map[string]any)) []byte {
		var d map[string]any
		json.Unmarshal(b.Bytes(), &d)
		change(d["findings"].([]any)[0].(map[string]any))
		out, _ := json.Marshal(d)
		return out
	}
	for name, doc := range map[string][]byte{
		"unknown field":    bad(func(f map[string]any) { f["lines"] = 3 }),
		"no fingerprint":   bad(func(f map[string]any) { delete(f, "fingerprint") }),
		"bad severity":     bad(func(f map[string]any) { f["severity"] = "fatal" }),
		"source line zero": bad(func(f map[string]any) { f["source"].(map[string]any)["line"] = 0 }),
	} {
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if err := sch.Validate(v); err == nil {
			t.Errorf("%s: the schema accepts %s", name, doc)
		}
	}
}
