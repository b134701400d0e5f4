/* phasetodo._core._speedups: optional C versions of the per-task loops.
 *
 * Each function here has a pure-Python twin in phasetodo._core.native, which
 * is what runs when this module is not built or PHASETODO_PURE=1 is set; the
 * two give equal results (tests/test_native.py checks them side by side).
 * Nothing here decides behaviour: the Python side hands in the statuses,
 * their wire names, prefixes and markers, so there is one source of truth.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

/* What setup() hands over: the four reference statuses in order, their wire
 * names, the blocked status, the wire-name -> status dict, the team-only keys,
 * JavaScript's whitespace and where Task keeps each field. */
static PyObject *g_status[4];
static PyObject *g_wire[4];
static PyObject *g_blocked;
static PyObject *g_lookup;
static PyObject *g_team_keys;
static PyObject *g_whitespace;
static PyTypeObject *g_task_type, *g_phase_type;
static Py_ssize_t g_slot[6];       /* Task: content, status, notes, owner, reason, after */
static Py_ssize_t g_phase_slot[2]; /* Phase: name, tasks */
static PyObject *g_empty_tuple;
static int g_ready;

/* Interned strings used as keys and attribute names. */
static PyObject *s_name, *s_tasks, *s_content, *s_status, *s_notes, *s_contents, *s_statuses;

static int
ready(void)
{
    if (!g_ready) {
        PyErr_SetString(PyExc_RuntimeError, "phasetodo._core._speedups.setup() was not called");
        return 0;
    }
    return 1;
}

/* The index of a reference status in g_status, or -1. */
static int
status_index(PyObject *status)
{
    for (int i = 0; i < 4; i++) {
        if (status == g_status[i]) {
            return i;
        }
    }
    return -1;
}

/* Whether cell is a tuple of strings. */
static int
is_note_tuple(PyObject *cell)
{
    if (!PyTuple_CheckExact(cell)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(cell); i++) {
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(cell, i))) {
            return 0;
        }
    }
    return 1;
}

static int
is_space(Py_UCS4 ch)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(g_whitespace);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyUnicode_READ_CHAR(g_whitespace, i) == ch) {
            return 1;
        }
    }
    return 0;
}

/* Append a new reference to list and drop it; 0 on success. */
static int
push(PyObject *list, PyObject *item)
{
    if (item == NULL) {
        return -1;
    }
    int failed = PyList_Append(list, item);
    Py_DECREF(item);
    return failed;
}

/* emit(ctx, line) for each line of each note of a notes cell (a list or tuple of strings),
 * and emit(ctx, NULL) between two notes; 0 on success. An allocation can run a collection,
 * and so Python code that changes a list: the size is read again for every note, and each
 * note is held by a reference of our own while it is split. */
typedef int (*LineSink)(void *ctx, PyObject *line);

static int
each_note_line(PyObject *cell, PyObject *newline, LineSink emit, void *ctx)
{
    for (Py_ssize_t i = 0; i < Py_SIZE(cell); i++) {
        if (i && emit(ctx, NULL) < 0) {
            return -1;
        }
        if (i >= Py_SIZE(cell)) {
            break;
        }
        PyObject *note = Py_NewRef(PyList_CheckExact(cell) ? PyList_GET_ITEM(cell, i) : PyTuple_GET_ITEM(cell, i));
        PyObject *lines = PyUnicode_Check(note) ? PyUnicode_Split(note, newline, -1) : NULL;
        if (lines == NULL && !PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "a note must be a string");
        }
        Py_DECREF(note);
        if (lines == NULL) {
            return -1;
        }
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(lines); j++) {
            if (emit(ctx, PyList_GET_ITEM(lines, j)) < 0) {
                Py_DECREF(lines);
                return -1;
            }
        }
        Py_DECREF(lines); /* what emit kept, it holds its own references to */
    }
    return 0;
}

/* -- setup ----------------------------------------------------------------------------- */

static Py_ssize_t
slot_offset(PyTypeObject *type, const char *field)
{
    PyObject *descr = PyDict_GetItemString(type->tp_dict, field);
    if (descr == NULL || !PyObject_TypeCheck(descr, &PyMemberDescr_Type)) {
        PyErr_Format(PyExc_TypeError, "%s.%s is not a slot", type->tp_name, field);
        return -1;
    }
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    if (member->type != T_OBJECT_EX || (member->flags & READONLY)) {
        PyErr_Format(PyExc_TypeError, "%s.%s is not a writable object slot", type->tp_name, field);
        return -1;
    }
    return member->offset;
}

static PyObject *
setup(PyObject *module, PyObject *args)
{
    PyObject *statuses, *wire, *blocked, *lookup, *team_keys, *whitespace, *task_type, *phase_type;
    if (!PyArg_ParseTuple(args, "O!O!OO!O!UO!O!:setup", &PyTuple_Type, &statuses, &PyTuple_Type,
                          &wire, &blocked, &PyDict_Type, &lookup, &PyTuple_Type, &team_keys,
                          &whitespace, &PyType_Type, &task_type, &PyType_Type, &phase_type)) {
        return NULL;
    }
    Py_ssize_t phase_offsets[2] = {
        slot_offset((PyTypeObject *)phase_type, "name"),
        slot_offset((PyTypeObject *)phase_type, "tasks"),
    };
    if (phase_offsets[0] < 0 || phase_offsets[1] < 0) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(statuses) != 4 || PyTuple_GET_SIZE(wire) != 4) {
        PyErr_SetString(PyExc_ValueError, "setup: four statuses and four wire names");
        return NULL;
    }
    static const char *fields[6] = {"content", "status", "notes", "owner", "reason", "after"};
    Py_ssize_t offsets[6];
    for (int i = 0; i < 6; i++) {
        offsets[i] = slot_offset((PyTypeObject *)task_type, fields[i]);
        if (offsets[i] < 0) {
            return NULL;
        }
    }
    for (int i = 0; i < 4; i++) {
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(wire, i))) {
            PyErr_SetString(PyExc_TypeError, "setup: wire names must be strings");
            return NULL;
        }
        Py_XSETREF(g_status[i], Py_NewRef(PyTuple_GET_ITEM(statuses, i)));
        Py_XSETREF(g_wire[i], Py_NewRef(PyTuple_GET_ITEM(wire, i)));
    }
    for (int i = 0; i < 6; i++) {
        g_slot[i] = offsets[i];
    }
    g_phase_slot[0] = phase_offsets[0];
    g_phase_slot[1] = phase_offsets[1];
    Py_XSETREF(g_phase_type, (PyTypeObject *)Py_NewRef(phase_type));
    Py_XSETREF(g_blocked, Py_NewRef(blocked));
    Py_XSETREF(g_lookup, Py_NewRef(lookup));
    Py_XSETREF(g_team_keys, Py_NewRef(team_keys));
    Py_XSETREF(g_whitespace, Py_NewRef(whitespace));
    Py_XSETREF(g_task_type, (PyTypeObject *)Py_NewRef(task_type));
    g_ready = 1;
    Py_RETURN_NONE;
}

/* -- rows: JSON phases as columns ------------------------------------------------------- */

/* Whether a task dict has one of a team plan's keys: 1, 0, or -1 with an error. */
static int
has_team_key(PyObject *task)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(g_team_keys); i++) {
        int has = PyDict_Contains(task, PyTuple_GET_ITEM(g_team_keys, i));
        if (has != 0) {
            return has;
        }
    }
    return 0;
}

/* A task dict's notes: None (none) or the input's list of strings itself. */
static PyObject *
task_notes(PyObject *task)
{
    Py_ssize_t size = PyDict_GET_SIZE(task);
    if (size == 2) {
        Py_RETURN_NONE;
    }
    /* our own reference: a key's __eq__ in the lookups below could change the dict */
    PyObject *noted = Py_XNewRef(PyDict_GetItemWithError(task, s_notes));
    if (noted == NULL && PyErr_Occurred()) {
        return NULL;
    }
    if (noted == NULL || noted == Py_None || size != 3) {
        int team = has_team_key(task);
        if (team != 0) {
            if (team > 0) {
                PyErr_SetString(PyExc_TypeError, "a team plan's field");
            }
            Py_XDECREF(noted);
            return NULL;
        }
        if (noted == NULL) {
            Py_RETURN_NONE;
        }
        if (noted == Py_None) {
            return noted;
        }
    }
    if (!PyList_CheckExact(noted)) {
        PyErr_SetString(PyExc_TypeError, "notes must be a list");
        Py_DECREF(noted);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(noted); i++) {
        if (!PyUnicode_CheckExact(PyList_GET_ITEM(noted, i))) {
            PyErr_SetString(PyExc_TypeError, "notes must be strings");
            Py_DECREF(noted);
            return NULL;
        }
    }
    return noted;
}

/* d[key], borrowed, or NULL with KeyError (or the lookup's own error). */
static PyObject *
required(PyObject *d, PyObject *key)
{
    PyObject *value = PyDict_GetItemWithError(d, key);
    if (value == NULL && !PyErr_Occurred()) {
        PyErr_SetObject(PyExc_KeyError, key);
    }
    return value;
}

/* One task dict into place i of the three columns (made with that size); 0 on success. */
static int
take_task(PyObject *task, Py_ssize_t i, PyObject *contents, PyObject *statuses, PyObject *notes)
{
    if (!PyDict_CheckExact(task)) {
        PyErr_SetString(PyExc_TypeError, "a task must be a dict");
        return -1;
    }
    /* our own reference: a key whose hash equals "status"'s runs its __eq__ in the next
     * lookup, and that can take the content out of the dict */
    PyObject *content = Py_XNewRef(required(task, s_content));
    PyObject *wire = content == NULL ? NULL : required(task, s_status);
    if (wire == NULL) {
        Py_XDECREF(content);
        return -1;
    }
    /* exact strings: looking the status up runs no code, so wire needs no reference */
    PyObject *status = PyUnicode_CheckExact(content) && PyUnicode_CheckExact(wire) ? required(g_lookup, wire) : NULL;
    if (status == NULL || status == g_blocked) {
        if (status == g_blocked) {
            PyErr_SetString(PyExc_TypeError, "a team plan's status");
        } else if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "content and status must be strings");
        }
        Py_DECREF(content);
        return -1;
    }
    /* placed before the notes are read: a key's __eq__ there could drop the dict's own refs */
    PyList_SET_ITEM(contents, i, content);
    PyList_SET_ITEM(statuses, i, Py_NewRef(status));
    PyObject *cell = task_notes(task);
    if (cell == NULL) {
        return -1;
    }
    PyList_SET_ITEM(notes, i, cell);
    return 0;
}

/* How one task goes into place i of a row's three columns; 0 on success. */
typedef int (*Taker)(PyObject *task, Py_ssize_t i, PyObject *contents, PyObject *statuses, PyObject *notes);

/* (name, contents, statuses, notes) from a tuple of tasks, one take() each. It holds its own
 * references to name and items meanwhile: a key's __eq__ in a task dict, or a collection run by
 * an allocation, could drop the owner's. */
static PyObject *
build_row(PyObject *name, PyObject *items, Taker take)
{
    Py_INCREF(name);
    Py_INCREF(items);
    Py_ssize_t count = PyTuple_GET_SIZE(items);
    PyObject *contents = PyList_New(count), *statuses = PyList_New(count), *notes = PyList_New(count);
    PyObject *row = NULL;
    if (contents != NULL && statuses != NULL && notes != NULL) {
        Py_ssize_t i = 0;
        while (i < count && take(PyTuple_GET_ITEM(items, i), i, contents, statuses, notes) == 0) {
            i++;
        }
        if (i == count) {
            row = PyTuple_Pack(4, name, contents, statuses, notes);
        }
    }
    Py_XDECREF(contents);
    Py_XDECREF(statuses);
    Py_XDECREF(notes);
    Py_DECREF(name);
    Py_DECREF(items);
    return row;
}

static PyObject *
one_row(PyObject *phase)
{
    if (!PyDict_CheckExact(phase)) {
        PyErr_SetString(PyExc_TypeError, "a phase must be a dict");
        return NULL;
    }
    /* our own reference, as in take_task: looking "tasks" up can run a key's __eq__ */
    PyObject *name = Py_XNewRef(required(phase, s_name));
    PyObject *tasks = name == NULL ? NULL : required(phase, s_tasks);
    PyObject *items = NULL, *row = NULL;
    if (tasks != NULL && PyUnicode_CheckExact(name) && (PyList_CheckExact(tasks) || PyTuple_CheckExact(tasks))) {
        items = PySequence_Tuple(tasks); /* a snapshot of the host's list; runs no code */
    } else if (tasks != NULL) {
        PyErr_SetString(PyExc_TypeError, "a phase needs a string name and a list of tasks");
    }
    if (items != NULL) {
        row = build_row(name, items, take_task);
        Py_DECREF(items);
    }
    Py_XDECREF(name);
    return row;
}

/* one(phase) for each phase of a snapshot of phases, as a list; NULL at the first failure. */
static PyObject *
each_row(PyObject *phases, PyObject *(*one)(PyObject *))
{
    if (!ready()) {
        return NULL;
    }
    PyObject *items = PySequence_Tuple(phases); /* a snapshot, as in one_row */
    if (items == NULL) {
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(items);
    PyObject *out = PyList_New(count);
    for (Py_ssize_t i = 0; out != NULL && i < count; i++) {
        PyObject *row = one(PyTuple_GET_ITEM(items, i));
        if (row == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, row);
    }
    Py_DECREF(items);
    return out;
}

static PyObject *
rows(PyObject *module, PyObject *phases)
{
    return each_row(phases, one_row);
}

/* -- value_rows: Phase values as columns ------------------------------------------------ */

/* A slot's value, borrowed; NULL with AttributeError when it was never set. */
static PyObject *
slot(PyObject *obj, Py_ssize_t offset)
{
    PyObject *value = *(PyObject **)((char *)obj + offset);
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "a field of a value was never set");
    }
    return value;
}

/* Task i of a phase into place i of the columns; 0 on success. */
static int
take_value(PyObject *task, Py_ssize_t i, PyObject *contents, PyObject *statuses, PyObject *notes)
{
    if (Py_TYPE(task) != g_task_type) {
        PyErr_SetString(PyExc_TypeError, "a task must be a Task");
        return -1;
    }
    PyObject *field[6];
    for (int k = 0; k < 6; k++) {
        if ((field[k] = slot(task, g_slot[k])) == NULL) {
            return -1;
        }
    }
    if (!PyUnicode_CheckExact(field[0]) || !is_note_tuple(field[2]) || status_index(field[1]) < 0
        || field[3] != Py_None || field[4] != Py_None || !PyTuple_CheckExact(field[5])
        || PyTuple_GET_SIZE(field[5])) {
        /* a team plan's fields (or a bad value): the general engine carries them */
        PyErr_SetString(PyExc_TypeError, "not a plain task of the reference's statuses");
        return -1;
    }
    PyList_SET_ITEM(contents, i, Py_NewRef(field[0]));
    PyList_SET_ITEM(statuses, i, Py_NewRef(field[1]));
    PyList_SET_ITEM(notes, i, Py_NewRef(field[2]));
    return 0;
}

static PyObject *
value_row(PyObject *phase)
{
    if (Py_TYPE(phase) != g_phase_type) {
        PyErr_SetString(PyExc_TypeError, "a phase must be a Phase");
        return NULL;
    }
    PyObject *name = slot(phase, g_phase_slot[0]);
    PyObject *tasks = name == NULL ? NULL : slot(phase, g_phase_slot[1]);
    if (tasks == NULL) {
        return NULL;
    }
    if (!PyUnicode_CheckExact(name) || !PyTuple_CheckExact(tasks)) {
        PyErr_SetString(PyExc_TypeError, "a phase's name must be a string, its tasks a tuple");
        return NULL;
    }
    return build_row(name, tasks, take_value);
}

static PyObject *
value_rows(PyObject *module, PyObject *phases)
{
    return each_row(phases, value_row);
}

/* -- parts: the summary lines and details.phases from columns ------------------------- */

/* A column's four fields; read_column takes a reference of its own to each (refs). */
typedef struct {
    PyObject *name, *contents, *statuses, *notes;
} Column;

static int
read_column(PyObject *borrowed, Column *out, PyObject *refs[4])
{
    /* the attribute lookups can run Python code that drops the caller's list's reference */
    PyObject *col = Py_NewRef(borrowed);
    refs[0] = PyObject_GetAttr(col, s_name);
    refs[1] = refs[0] ? PyObject_GetAttr(col, s_contents) : NULL;
    refs[2] = refs[1] ? PyObject_GetAttr(col, s_statuses) : NULL;
    refs[3] = refs[2] ? PyObject_GetAttr(col, s_notes) : NULL;
    Py_DECREF(col);
    if (refs[3] == NULL) {
        return -1;
    }
    if (!PyUnicode_Check(refs[0]) || !PyList_CheckExact(refs[1]) || !PyList_CheckExact(refs[2])
        || !PyList_CheckExact(refs[3]) || PyList_GET_SIZE(refs[1]) != PyList_GET_SIZE(refs[2])
        || PyList_GET_SIZE(refs[1]) != PyList_GET_SIZE(refs[3])) {
        PyErr_SetString(PyExc_TypeError, "a column is a name and three lists of one length");
        return -1;
    }
    out->name = refs[0];
    out->contents = refs[1];
    out->statuses = refs[2];
    out->notes = refs[3];
    return 0;
}

static void
drop_refs(PyObject *refs[4])
{
    for (int i = 0; i < 4; i++) {
        Py_CLEAR(refs[i]);
    }
}

/* The number of notes a notes cell holds: None, a list or a tuple of strings. */
static Py_ssize_t
note_count(PyObject *cell)
{
    if (cell == Py_None) {
        return 0;
    }
    if (PyList_CheckExact(cell) || PyTuple_CheckExact(cell)) {
        return Py_SIZE(cell);
    }
    PyErr_SetString(PyExc_TypeError, "notes must be None, a list or a tuple");
    return -1;
}

/* The reference status of a column cell, as an index; -1 with an error if it is not one. */
static int
cell_status(PyObject *status)
{
    int at = status_index(status);
    if (at < 0) {
        PyErr_SetString(PyExc_TypeError, "not one of the reference's four statuses");
    }
    return at;
}

/* Task i of a column: its content and notes cell (references of our own: an allocation
 * can run a collection, and so code that changes the column), status index and note count. */
typedef struct {
    PyObject *content, *cell;
    int status;
    Py_ssize_t noted;
} Cell;

/* Whether place i is still in all three lists of a column; ValueError if not, as the
 * Python loop's zip(strict=True) raises when their lengths differ. */
static int
in_column(Column *col, Py_ssize_t i)
{
    if (i < PyList_GET_SIZE(col->contents) && i < PyList_GET_SIZE(col->statuses) && i < PyList_GET_SIZE(col->notes)) {
        return 1;
    }
    PyErr_SetString(PyExc_ValueError, "a column changed while it was read");
    return 0;
}

static int
read_cell(Column *col, Py_ssize_t i, Cell *c)
{
    c->content = c->cell = NULL;
    if (!in_column(col, i)) {
        return -1;
    }
    c->status = cell_status(PyList_GET_ITEM(col->statuses, i));
    c->noted = c->status < 0 ? -1 : note_count(PyList_GET_ITEM(col->notes, i));
    if (c->noted < 0) {
        return -1;
    }
    if (!PyUnicode_Check(PyList_GET_ITEM(col->contents, i))) {
        PyErr_SetString(PyExc_TypeError, "content must be a string");
        return -1;
    }
    c->content = Py_NewRef(PyList_GET_ITEM(col->contents, i));
    c->cell = Py_NewRef(PyList_GET_ITEM(col->notes, i));
    return 0;
}

static void
drop_cell(Cell *c)
{
    Py_CLEAR(c->content);
    Py_CLEAR(c->cell);
}

/* Lines kept as pieces and joined once: no string per line is built. */
typedef struct {
    PyObject *pieces;
    Py_ssize_t lines;
} Text;

/* Append one line made of n pieces (a newline goes before every line but the first). */
static int
text_line(Text *t, PyObject *newline, PyObject *const *parts, int n)
{
    if (t->lines++ && PyList_Append(t->pieces, newline) < 0) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (PyList_Append(t->pieces, parts[i]) < 0) {
            return -1;
        }
    }
    return 0;
}

typedef struct {
    Text tree, remaining;
    PyObject *dumped;
    PyObject *prefix[4];    /* the summary's "    ○ " etc., by status */
    PyObject *open_tail[2]; /* " [pending] (" and " [in_progress] (" */
    PyObject *indent, *rule, *dash, *newline, *two, *colon, *close;
    /* "        ", "        ---", "  - ", "\n", "  ", ":", ")" */
} Parts;

/* " (+1 note)", " (+2 notes)", ...: made once for the counts tasks usually have. */
#define NOTE_COUNTS 16
static PyObject *g_note_count[NOTE_COUNTS];

static PyObject *
note_count_text(Py_ssize_t count)
{
    if (count >= NOTE_COUNTS) {
        return PyUnicode_FromFormat(" (+%zd notes)", count);
    }
    if (g_note_count[count] == NULL) {
        g_note_count[count] = count == 1 ? PyUnicode_FromString(" (+1 note)")
                                         : PyUnicode_FromFormat(" (+%zd notes)", count);
    }
    return Py_XNewRef(g_note_count[count]);
}

/* One line under the active task: "        " + line, or "        ---" between notes. */
static int
active_note_line(void *ctx, PyObject *line)
{
    Parts *p = ctx;
    if (line == NULL) {
        return text_line(&p->tree, p->newline, &p->rule, 1);
    }
    PyObject *parts[2] = {p->indent, line};
    return text_line(&p->tree, p->newline, parts, 2);
}

/* A task's details dict: content, status and (when it has notes) a fresh list of them. */
static PyObject *
task_dict(PyObject *content, int status, PyObject *cell, Py_ssize_t noted)
{
    PyObject *task = PyDict_New();
    if (task == NULL) {
        return NULL;
    }
    if (PyDict_SetItem(task, s_content, content) < 0 || PyDict_SetItem(task, s_status, g_wire[status]) < 0) {
        Py_DECREF(task);
        return NULL;
    }
    if (noted) {
        PyObject *copy = PySequence_List(cell);
        if (copy == NULL || PyDict_SetItem(task, s_notes, copy) < 0) {
            Py_XDECREF(copy);
            Py_DECREF(task);
            return NULL;
        }
        Py_DECREF(copy);
    }
    return task;
}

/* One task's summary line (and its notes when active). */
static int
tree_line(Parts *p, PyObject *content, int status, PyObject *cell, Py_ssize_t noted)
{
    if (!noted) {
        PyObject *line[2] = {p->prefix[status], content};
        return text_line(&p->tree, p->newline, line, 2);
    }
    PyObject *count = note_count_text(noted);
    if (count == NULL) {
        return -1;
    }
    PyObject *line[3] = {p->prefix[status], content, count};
    int failed = text_line(&p->tree, p->newline, line, 3);
    Py_DECREF(count);
    if (failed || status != 1) {
        return failed;
    }
    return each_note_line(cell, p->newline, active_note_line, p);
}

/* One phase: its tree lines, its open tasks, its details dict; 1 if it had an open task. */
static int
phase_parts(Parts *p, Column *col)
{
    PyObject *head[3] = {p->two, col->name, p->colon};
    if (text_line(&p->tree, p->newline, head, 3) < 0) {
        return -1;
    }
    Py_ssize_t count = PyList_GET_SIZE(col->contents);
    PyObject *tasks = PyList_New(count);
    int opened = 0;
    if (tasks == NULL) {
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        Cell c;
        PyObject *task = NULL;
        if (read_cell(col, i, &c) == 0) {
            if (c.status < 2) {
                PyObject *line[5] = {p->dash, c.content, p->open_tail[c.status], col->name, p->close};
                opened = text_line(&p->remaining, p->newline, line, 5) < 0 ? -1 : 1;
            }
            if (opened >= 0 && tree_line(p, c.content, c.status, c.cell, c.noted) == 0) {
                task = task_dict(c.content, c.status, c.cell, c.noted);
            }
        }
        drop_cell(&c);
        if (task == NULL) {
            goto fail;
        }
        PyList_SET_ITEM(tasks, i, task);
    }
    PyObject *phase = PyDict_New();
    if (phase == NULL || PyDict_SetItem(phase, s_name, col->name) < 0
        || PyDict_SetItem(phase, s_tasks, tasks) < 0) {
        Py_XDECREF(phase);
        goto fail;
    }
    Py_DECREF(tasks);
    return push(p->dumped, phase) < 0 ? -1 : opened;
fail:
    Py_DECREF(tasks);
    return -1;
}

static void
parts_clear(Parts *p)
{
    Py_CLEAR(p->tree.pieces);
    Py_CLEAR(p->remaining.pieces);
    Py_CLEAR(p->dumped);
    Py_CLEAR(p->indent);
    Py_CLEAR(p->rule);
    Py_CLEAR(p->dash);
    Py_CLEAR(p->newline);
    Py_CLEAR(p->two);
    Py_CLEAR(p->colon);
    Py_CLEAR(p->close);
    Py_CLEAR(p->open_tail[0]);
    Py_CLEAR(p->open_tail[1]);
}

static PyObject *
parts(PyObject *module, PyObject *args)
{
    PyObject *cols, *prefixes, *result = NULL;
    if (!ready() || !PyArg_ParseTuple(args, "O!O!:parts", &PyList_Type, &cols, &PyTuple_Type, &prefixes)) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(prefixes) != 4) {
        PyErr_SetString(PyExc_ValueError, "parts: four prefixes");
        return NULL;
    }
    Parts p = {{PyList_New(0), 0}, {PyList_New(0), 0}, PyList_New(0)};
    for (int i = 0; i < 4; i++) {
        p.prefix[i] = PyTuple_GET_ITEM(prefixes, i);
        if (!PyUnicode_Check(p.prefix[i])) {
            PyErr_SetString(PyExc_TypeError, "parts: prefixes must be strings");
            goto done;
        }
    }
    p.indent = PyUnicode_FromString("        ");
    p.rule = PyUnicode_FromString("        ---");
    p.dash = PyUnicode_FromString("  - ");
    p.newline = PyUnicode_FromOrdinal('\n');
    p.two = PyUnicode_FromString("  ");
    p.colon = PyUnicode_FromOrdinal(':');
    p.close = PyUnicode_FromOrdinal(')');
    p.open_tail[0] = PyUnicode_FromFormat(" [%U] (", g_wire[0]);
    p.open_tail[1] = PyUnicode_FromFormat(" [%U] (", g_wire[1]);
    if (!p.tree.pieces || !p.remaining.pieces || !p.dumped || !p.indent || !p.rule || !p.dash || !p.newline
        || !p.two || !p.colon || !p.close || !p.open_tail[0] || !p.open_tail[1]) {
        goto done;
    }
    Py_ssize_t current = -1;
    for (Py_ssize_t n = 0; n < PyList_GET_SIZE(cols); n++) {
        PyObject *refs[4] = {NULL};
        Column col;
        int opened = read_column(PyList_GET_ITEM(cols, n), &col, refs) < 0 ? -1 : phase_parts(&p, &col);
        drop_refs(refs);
        if (opened < 0) {
            goto done;
        }
        if (opened && current < 0) {
            current = n;
        }
    }
    PyObject *empty = PyUnicode_FromString("");
    PyObject *tree = empty ? PyUnicode_Join(empty, p.tree.pieces) : NULL;
    PyObject *remaining = tree ? PyUnicode_Join(empty, p.remaining.pieces) : NULL;
    Py_XDECREF(empty);
    if (remaining != NULL) {
        result = Py_BuildValue("(NNnOn)", tree, remaining, p.remaining.lines, p.dumped, current);
    } else {
        Py_XDECREF(tree);
    }
done:
    parts_clear(&p);
    return result;
}

/* -- index: the lookups a working copy needs ------------------------------------------- */

/* One column into the lookups: the first phase of a name and of each content wins. */
static int
index_column(PyObject *col, PyObject *by_name, PyObject *by_content, PyObject *active, Py_ssize_t *total)
{
    PyObject *refs[4] = {NULL};
    Column c;
    int failed = read_column(col, &c, refs) < 0 || PyDict_SetDefault(by_name, c.name, col) == NULL;
    Py_ssize_t count = failed ? 0 : PyList_GET_SIZE(c.contents);
    /* hashing a content (a str subclass's __hash__) can run code that changes the lists:
     * the content is held meanwhile and the place checked again before each read */
    for (Py_ssize_t i = 0; !failed && i < PyList_GET_SIZE(c.contents); i++) {
        PyObject *content = Py_NewRef(PyList_GET_ITEM(c.contents, i));
        failed = PyDict_SetDefault(by_content, content, col) == NULL;
        Py_DECREF(content);
        if (!failed && i < PyList_GET_SIZE(c.statuses) && PyList_GET_ITEM(c.statuses, i) == g_status[1]) {
            PyObject *key = Py_BuildValue("(On)", col, i);
            failed = key == NULL || PyDict_SetItem(active, key, Py_None) < 0;
            Py_XDECREF(key);
        }
    }
    *total += count;
    drop_refs(refs);
    return failed ? -1 : 0;
}

static PyObject *
index_columns(PyObject *module, PyObject *cols)
{
    if (!ready()) {
        return NULL;
    }
    if (!PyList_CheckExact(cols)) {
        PyErr_SetString(PyExc_TypeError, "index: cols must be a list");
        return NULL;
    }
    PyObject *by_name = PyDict_New(), *by_content = PyDict_New(), *active = PyDict_New();
    Py_ssize_t total = 0;
    if (by_name == NULL || by_content == NULL || active == NULL) {
        goto fail;
    }
    for (Py_ssize_t n = 0; n < PyList_GET_SIZE(cols); n++) {
        /* held: hashing a name or content can run code that empties cols */
        PyObject *col = Py_NewRef(PyList_GET_ITEM(cols, n));
        int failed = index_column(col, by_name, by_content, active, &total);
        Py_DECREF(col);
        if (failed < 0) {
            goto fail;
        }
    }
    return Py_BuildValue("(NNNn)", by_name, by_content, active, total);
fail:
    Py_XDECREF(by_name);
    Py_XDECREF(by_content);
    Py_XDECREF(active);
    return NULL;
}

/* -- make_tasks: Task values without running __init__ ---------------------------------- */

/* Whether the three columns are of one length; ValueError if not. */
static int
same_lengths(PyObject *contents, PyObject *statuses, PyObject *notes)
{
    Py_ssize_t size = PyList_GET_SIZE(contents);
    if (PyList_GET_SIZE(statuses) == size && (notes == Py_None || PyList_GET_SIZE(notes) == size)) {
        return 1;
    }
    PyErr_SetString(PyExc_ValueError, "make_tasks: columns of different lengths");
    return 0;
}

/* Task i of the columns. The task is allocated first and the columns read afterwards: an
 * allocation can run a collection, and so code that changes them. */
static PyObject *
new_task(PyObject *contents, PyObject *statuses, PyObject *notes, Py_ssize_t i)
{
    PyObject *task = g_task_type->tp_alloc(g_task_type, 0);
    if (task == NULL) {
        return NULL;
    }
    if (!same_lengths(contents, statuses, notes) || i >= PyList_GET_SIZE(contents)) {
        Py_DECREF(task);
        return NULL;
    }
    PyObject *content = PyList_GET_ITEM(contents, i), *status = PyList_GET_ITEM(statuses, i);
    PyObject *cell = notes == Py_None ? g_empty_tuple : PyList_GET_ITEM(notes, i);
    if (!PyUnicode_CheckExact(content) || status_index(status) < 0 || !is_note_tuple(cell)) {
        PyErr_SetString(PyExc_TypeError, "make_tasks: a string, a reference status and a tuple of notes");
        Py_DECREF(task);
        return NULL;
    }
    PyObject *values[6] = {content, status, cell, Py_None, Py_None, g_empty_tuple};
    for (int i = 0; i < 6; i++) {
        *(PyObject **)((char *)task + g_slot[i]) = Py_NewRef(values[i]);
    }
    /* Strings, a status and tuples of strings can hold no reference back to the task, so it
     * can never be part of a cycle: the collector need not look at it (as with such tuples). */
    PyObject_GC_UnTrack(task);
    return task;
}

static PyObject *
make_tasks(PyObject *module, PyObject *args)
{
    PyObject *contents, *statuses, *notes = Py_None;
    if (!ready() || !PyArg_ParseTuple(args, "O!O!|O:make_tasks", &PyList_Type, &contents, &PyList_Type,
                                      &statuses, &notes)) {
        return NULL;
    }
    if (notes != Py_None && !PyList_CheckExact(notes)) {
        PyErr_SetString(PyExc_TypeError, "make_tasks: notes must be a list or None");
        return NULL;
    }
    if (!same_lengths(contents, statuses, notes)) {
        return NULL;
    }
    Py_ssize_t size = PyList_GET_SIZE(contents);
    PyObject *out = PyList_New(size);
    for (Py_ssize_t i = 0; out != NULL && i < size; i++) {
        PyObject *task = new_task(contents, statuses, notes, i);
        if (task == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, task);
    }
    return out;
}

/* -- Markdown ---------------------------------------------------------------------------- */

/* The pieces of the output, joined once at the end: no string per line is built. */
typedef struct {
    PyObject *out;
    PyObject *marks[4];                       /* "- [ ] " etc., by status */
    PyObject *heading, *quote, *bare, *newline; /* "# ", "  > ", "  >", "\n" */
} Render;

static int
put(Render *r, PyObject *a, PyObject *b)
{
    return (a && PyList_Append(r->out, a) < 0) || PyList_Append(r->out, b) < 0
           || PyList_Append(r->out, r->newline) < 0 ? -1 : 0;
}

/* One Markdown note line: "  > line", or "  >" for an empty line and between notes. */
static int
markdown_note_line(void *ctx, PyObject *line)
{
    Render *r = ctx;
    return line != NULL && PyUnicode_GET_LENGTH(line) ? put(r, r->quote, line) : put(r, NULL, r->bare);
}

static int
render_phase(Render *r, Column *col)
{
    if (PyList_GET_SIZE(r->out) && PyList_Append(r->out, r->newline) < 0) {
        return -1; /* a blank line between phases */
    }
    if (put(r, r->heading, col->name) < 0) {
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(col->contents); i++) {
        Cell c;
        int failed = read_cell(col, i, &c) < 0 || put(r, r->marks[c.status], c.content) < 0
                     || (c.noted && each_note_line(c.cell, r->newline, markdown_note_line, r) < 0);
        drop_cell(&c);
        if (failed) {
            return -1;
        }
    }
    return 0;
}

static PyObject *
render(PyObject *module, PyObject *args)
{
    PyObject *cols, *markers;
    if (!ready() || !PyArg_ParseTuple(args, "O!O!:render", &PyList_Type, &cols, &PyTuple_Type, &markers)) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(markers) != 4) {
        PyErr_SetString(PyExc_ValueError, "render: four markers");
        return NULL;
    }
    Render r = {PyList_New(0)};
    PyObject *result = NULL, *empty = PyUnicode_FromString("");
    for (int i = 0; i < 4; i++) {
        r.marks[i] = PyUnicode_FromFormat("- [%U] ", PyTuple_GET_ITEM(markers, i));
        if (r.marks[i] == NULL) {
            goto done;
        }
    }
    r.heading = PyUnicode_FromString("# ");
    r.quote = PyUnicode_FromString("  > ");
    r.bare = PyUnicode_FromString("  >");
    r.newline = PyUnicode_FromOrdinal('\n');
    if (r.out == NULL || empty == NULL || !r.heading || !r.quote || !r.bare || !r.newline) {
        goto done;
    }
    for (Py_ssize_t n = 0; n < PyList_GET_SIZE(cols); n++) {
        PyObject *refs[4] = {NULL};
        Column col;
        int failed = read_column(PyList_GET_ITEM(cols, n), &col, refs) < 0 || render_phase(&r, &col) < 0;
        drop_refs(refs);
        if (failed) {
            goto done;
        }
    }
    result = PyUnicode_Join(empty, r.out);
done:
    for (int i = 0; i < 4; i++) {
        Py_XDECREF(r.marks[i]);
    }
    Py_XDECREF(r.heading);
    Py_XDECREF(r.quote);
    Py_XDECREF(r.bare);
    Py_XDECREF(r.newline);
    Py_XDECREF(r.out);
    Py_XDECREF(empty);
    return result;
}

/* The status a plain task line's marker stands for, or NULL. */
static PyObject *
marker_status(PyObject *status_of, Py_UCS4 marker)
{
    PyObject *key = PyUnicode_FromOrdinal(marker);
    if (key == NULL) {
        return NULL;
    }
    PyObject *status = PyDict_GetItemWithError(status_of, key);
    Py_DECREF(key);
    return status;
}

/* The end (just past "\n") of a plain task line starting at pos, or -1: "- [m] " with a
 * known marker, then a content whose first and last characters are not whitespace. */
static Py_ssize_t
plain_line(PyObject *text, Py_ssize_t pos, Py_ssize_t size, const char *known)
{
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    if (pos + 7 > size || PyUnicode_READ(kind, data, pos) != '-' || PyUnicode_READ(kind, data, pos + 1) != ' '
        || PyUnicode_READ(kind, data, pos + 2) != '[' || PyUnicode_READ(kind, data, pos + 4) != ']'
        || PyUnicode_READ(kind, data, pos + 5) != ' ') {
        return -1;
    }
    Py_UCS4 marker = PyUnicode_READ(kind, data, pos + 3);
    if (marker > 127 || marker == 0 || strchr(known, (int)marker) == NULL) {
        return -1;
    }
    Py_ssize_t end = PyUnicode_FindChar(text, '\n', pos + 6, size, 1);
    if (end < 0 || end == pos + 6) { /* -2 is an error, -1 no line end */
        return end == pos + 6 ? -1 : end;
    }
    if (is_space(PyUnicode_READ(kind, data, pos + 6)) || is_space(PyUnicode_READ(kind, data, end - 1))) {
        return -1;
    }
    return end + 1;
}

static PyObject *
task_run(PyObject *module, PyObject *args)
{
    PyObject *text, *status_of;
    Py_ssize_t pos;
    const char *known;
    if (!ready() || !PyArg_ParseTuple(args, "UnO!s:task_run", &text, &pos, &PyDict_Type, &status_of, &known)) {
        return NULL;
    }
    Py_ssize_t size = PyUnicode_GET_LENGTH(text);
    PyObject *contents = PyList_New(0), *statuses = PyList_New(0);
    if (contents == NULL || statuses == NULL) {
        goto fail;
    }
    while (pos >= 0 && pos < size) {
        Py_ssize_t end = plain_line(text, pos, size, known);
        if (end == -2) {
            goto fail;
        }
        if (end < 0) {
            break;
        }
        PyObject *status = marker_status(status_of, PyUnicode_READ_CHAR(text, pos + 3));
        if (status == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_KeyError, "a marker task_run was told about has no status");
            }
            goto fail;
        }
        if (PyList_Append(statuses, status) < 0 || push(contents, PyUnicode_Substring(text, pos + 6, end - 1)) < 0) {
            goto fail;
        }
        pos = end;
    }
    return Py_BuildValue("(NNn)", contents, statuses, pos);
fail:
    Py_XDECREF(contents);
    Py_XDECREF(statuses);
    return NULL;
}

static PyMethodDef speedups_methods[] = {
    {"setup", setup, METH_VARARGS, "setup(statuses, wire, blocked, lookup, team_keys, whitespace, task_type, phase_type)"},
    {"rows", rows, METH_O, "rows(phases) -> [(name, contents, statuses, notes)] from JSON phases"},
    {"value_rows", value_rows, METH_O, "value_rows(phases) -> [(name, contents, statuses, notes)] from Phase values"},
    {"index", index_columns, METH_O, "index(cols) -> (by_name, by_content, active, count)"},
    {"parts", parts, METH_VARARGS, "parts(cols, prefixes) -> (tree, remaining, open, dumped, current)"},
    {"make_tasks", make_tasks, METH_VARARGS, "make_tasks(contents, statuses, notes=None) -> [Task]"},
    {"render", render, METH_VARARGS, "render(cols, markers) -> the Markdown checklist"},
    {"task_run", task_run, METH_VARARGS, "task_run(text, pos, status_of, known) -> (contents, statuses, end) of the plain task lines from pos"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT, "_speedups", "C versions of phasetodo's per-task loops.", -1, speedups_methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    s_name = PyUnicode_InternFromString("name");
    s_tasks = PyUnicode_InternFromString("tasks");
    s_content = PyUnicode_InternFromString("content");
    s_status = PyUnicode_InternFromString("status");
    s_notes = PyUnicode_InternFromString("notes");
    s_contents = PyUnicode_InternFromString("contents");
    s_statuses = PyUnicode_InternFromString("statuses");
    g_empty_tuple = PyTuple_New(0);
    if (!s_name || !s_tasks || !s_content || !s_status || !s_notes || !s_contents || !s_statuses || !g_empty_tuple) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&speedups_module);
    /* the interface version phasetodo._core.native checks: bump it with any change of a signature */
    if (module != NULL && PyModule_AddIntConstant(module, "API", 1) < 0) {
        Py_CLEAR(module);
    }
    return module;
}
