package structscan

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// plan decodes one STRUCT shape into one Go struct type: an op per STRUCT
// field, in the STRUCT's order.
type plan struct {
	goType reflect.Type
	names  []string          // the shape, compared per scan
	types  []*spannerpb.Type // (pointers: the driver keeps one per result shape)
	ops    []fieldOp
	err    error // the shape cannot decode into goType; cached like a plan
}

// fieldOp is where one STRUCT field goes: through embedded pointers (steps,
// allocated when nil, as encoding/json does) to the field at off.
type fieldOp struct {
	steps []step
	off   uintptr
	path  string // Go path
	name  string // STRUCT field name
	dec   decoder
}

type step struct {
	off  uintptr
	elem reflect.Type // the embedded pointer's struct type
}

// decoder stores the value v (a STRUCT field's value, NULL included) into
// the Go field at p.
type decoder func(p unsafe.Pointer, v *structpb.Value) error

// maxShapes bounds the cached shapes per Go type; past it plans are built
// per scan (correct, slower), so that a stream of ad hoc shapes cannot grow
// memory without bound.
const maxShapes = 64

type typeInfo struct {
	fields []goField
	last   atomic.Pointer[plan]
	mu     sync.Mutex
	shapes map[string]*plan
}

var infos sync.Map // reflect.Type -> *typeInfo

func infoOf(t reflect.Type) *typeInfo {
	if ti, ok := infos.Load(t); ok {
		return ti.(*typeInfo)
	}
	ti, _ := infos.LoadOrStore(t, &typeInfo{fields: structFields(t), shapes: map[string]*plan{}})
	return ti.(*typeInfo)
}

// planForRow returns the plan of r's shape into t: the type's last plan when
// r has its shape (names and types equal: no allocation), else the cached
// or a new one.
func planForRow(t reflect.Type, r *spanner.Row) *plan {
	ti := infoOf(t)
	if p := ti.last.Load(); p != nil && p.matches(r) {
		return p
	}
	fields := make([]*spannerpb.StructType_Field, r.Size())
	for i := range fields {
		fields[i] = &spannerpb.StructType_Field{Name: r.ColumnName(i), Type: r.ColumnType(i)}
	}
	p := ti.plan(t, fields)
	ti.last.Store(p)
	return p
}

func (p *plan) matches(r *spanner.Row) bool {
	if r.Size() != len(p.types) {
		return false
	}
	for i, t := range p.types {
		if r.ColumnName(i) != p.names[i] || !sameType(r.ColumnType(i), t) {
			return false
		}
	}
	return true
}

// sameType compares two types without allocating. spanner.NewRow clones
// each field's type, so the rows of one result share shapes, not pointers.
func sameType(a, b *spannerpb.Type) bool {
	if a == b {
		return true
	}
	if a.GetCode() != b.GetCode() || a.GetTypeAnnotation() != b.GetTypeAnnotation() || a.GetProtoTypeFqn() != b.GetProtoTypeFqn() {
		return false
	}
	switch a.GetCode() {
	case spannerpb.TypeCode_ARRAY:
		return sameType(a.GetArrayElementType(), b.GetArrayElementType())
	case spannerpb.TypeCode_STRUCT:
		fa, fb := a.GetStructType().GetFields(), b.GetStructType().GetFields()
		if len(fa) != len(fb) {
			return false
		}
		for i := range fa {
			if fa[i].GetName() != fb[i].GetName() || !sameType(fa[i].GetType(), fb[i].GetType()) {
				return false
			}
		}
	}
	return true
}

// plan returns the cached plan for fields' shape, building it if needed.
// The build runs outside the lock: a recursive Go type builds plans of its
// own type for nested (smaller) shapes.
func (ti *typeInfo) plan(t reflect.Type, fields []*spannerpb.StructType_Field) *plan {
	key, err := proto.MarshalOptions{Deterministic: true}.Marshal(&spannerpb.StructType{Fields: fields})
	if err != nil {
		return &plan{goType: t, err: err}
	}
	ti.mu.Lock()
	p := ti.shapes[string(key)]
	ti.mu.Unlock()
	if p != nil {
		return p
	}
	p = build(t, ti.fields, fields)
	ti.mu.Lock()
	if q := ti.shapes[string(key)]; q != nil {
		p = q
	} else if len(ti.shapes) < maxShapes {
		ti.shapes[string(key)] = p
	}
	ti.mu.Unlock()
	return p
}

var (
	errNoField   = errors.New("the Go struct has no field of this name (tag `spanner:\"name\"` or field name, any case)")
	errUnnamed   = errors.New("the STRUCT field has no name, so no Go field can match it")
	errDuplicate = errors.New("the STRUCT has two fields of this name")
	errNull      = errors.New("NULL cannot be stored in this Go type: use a pointer, a spanner.Null* or sql.Null* type")
)

func build(t reflect.Type, gfs []goField, fields []*spannerpb.StructType_Field) *plan {
	p := &plan{goType: t, names: make([]string, len(fields)), types: make([]*spannerpb.Type, len(fields)), ops: make([]fieldOp, len(fields))}
	seen := make(map[string]bool, len(fields))
	for i, f := range fields {
		p.names[i], p.types[i] = f.GetName(), f.GetType()
		name := f.GetName()
		if name == "" {
			p.err = &FieldError{GoType: t, Field: fmt.Sprintf("#%d", i), Element: -1, Err: errUnnamed}
			return p
		}
		if seen[name] {
			p.err = &FieldError{GoType: t, Field: name, Element: -1, Err: errDuplicate}
			return p
		}
		seen[name] = true
		gf := match(gfs, name)
		if gf == nil {
			p.err = &FieldError{GoType: t, Field: name, Element: -1, Err: errNoField}
			return p
		}
		dec, err := decoderFor(gf.typ, f.GetType())
		if err != nil {
			p.err = nested(t, gf.path, name, err)
			return p
		}
		op := fieldOp{path: gf.path, name: name, dec: dec}
		cur := t
		for k, idx := range gf.index {
			sf := cur.Field(idx)
			op.off += sf.Offset
			if k == len(gf.index)-1 {
				break
			}
			cur = sf.Type
			if cur.Kind() == reflect.Pointer {
				cur = cur.Elem()
				op.steps = append(op.steps, step{off: op.off, elem: cur})
				op.off = 0
			}
		}
		p.ops[i] = op
	}
	return p
}

// field returns the address of op's field in the struct at base.
func (op *fieldOp) field(base unsafe.Pointer) unsafe.Pointer {
	for _, s := range op.steps {
		pp := (*unsafe.Pointer)(unsafe.Add(base, s.off))
		if *pp == nil {
			*pp = reflect.New(s.elem).UnsafePointer()
		}
		base = *pp
	}
	return unsafe.Add(base, op.off)
}

func (p *plan) fail(op *fieldOp, err error) error {
	return nested(p.goType, op.path, op.name, err)
}

// decodeRow fills the struct at base from a row of p's shape.
func (p *plan) decodeRow(base unsafe.Pointer, r *spanner.Row) error {
	if p.err != nil {
		return p.err
	}
	for i := range p.ops {
		op := &p.ops[i]
		if err := op.dec(op.field(base), r.ColumnValue(i)); err != nil {
			return p.fail(op, err)
		}
	}
	return nil
}

// decodeList fills the struct at base from a nested STRUCT value.
func (p *plan) decodeList(base unsafe.Pointer, vals []*structpb.Value) error {
	if p.err != nil {
		return p.err
	}
	if len(vals) != len(p.ops) {
		return fmt.Errorf("a STRUCT value of %d fields for a STRUCT type of %d", len(vals), len(p.ops))
	}
	for i := range p.ops {
		op := &p.ops[i]
		if err := op.dec(op.field(base), vals[i]); err != nil {
			return p.fail(op, err)
		}
	}
	return nil
}
