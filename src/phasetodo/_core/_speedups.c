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
static Py_ssize_t g_slot[8];       /* Task: content, status, notes, owner, reason, after, id, lease */
static Py_ssize_t g_phase_slot[2]; /* Phase: name, tasks */
static PyObject *g_empty_tuple;
/* The wire names' statuses, as setup() was given them in the lookup dict. */
#define WIRE_NAMES 8
static PyObject *g_wire_key[WIRE_NAMES], *g_wire_status[WIRE_NAMES];
static int g_wire_count = -1; /* -1: the lookup dict has a key that is not an exact str */
static int g_ready;

/* Interned strings used as keys and attribute names. */
static PyObject *s_name, *s_tasks, *s_content, *s_status, *s_notes, *s_contents, *s_statuses, *s_id, *s_ids;

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

/* A str ready to be read in place (3.11 may still hold a legacy one); 0 on success. */
static inline int
ready_str(PyObject *s)
{
#if PY_VERSION_HEX < 0x030C0000
    return PyUnicode_READY(s);
#else
    (void)s;
    return 0;
#endif
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
    static const char *fields[8] = {"content", "status", "notes", "owner", "reason", "after", "id", "lease"};
    Py_ssize_t offsets[8];
    for (int i = 0; i < 8; i++) {
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
    for (int i = 0; i < 8; i++) {
        g_slot[i] = offsets[i];
    }
    g_phase_slot[0] = phase_offsets[0];
    g_phase_slot[1] = phase_offsets[1];
    Py_XSETREF(g_phase_type, (PyTypeObject *)Py_NewRef(phase_type));
    Py_XSETREF(g_blocked, Py_NewRef(blocked));
    Py_XSETREF(g_lookup, Py_NewRef(lookup));
    for (int i = 0; i < g_wire_count; i++) {
        Py_CLEAR(g_wire_key[i]);
        Py_CLEAR(g_wire_status[i]);
    }
    g_wire_count = 0;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (g_wire_count >= 0 && PyDict_Next(lookup, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key) || g_wire_count == WIRE_NAMES || ready_str(key) < 0) {
            PyErr_Clear();
            for (int i = 0; i < g_wire_count; i++) {
                Py_CLEAR(g_wire_key[i]);
                Py_CLEAR(g_wire_status[i]);
            }
            g_wire_count = -1; /* look wire names up in the dict itself */
            break;
        }
        g_wire_key[g_wire_count] = Py_NewRef(key);
        g_wire_status[g_wire_count++] = Py_NewRef(value);
    }
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

/* The keys a task dict is read by, and the last key object seen equal to each: JSON
 * decoding gives one key object per name for a whole document, so after its first task
 * a key is known by identity. */
enum { K_CONTENT, K_STATUS, K_NOTES, K_TEAM, K_OTHER };
static PyObject *g_seen[3];

/* Whether two exact strings are equal (neither compare runs code). */
static int
same_text(PyObject *a, PyObject *b)
{
    Py_ssize_t size = PyUnicode_GET_LENGTH(a);
    return size == PyUnicode_GET_LENGTH(b) && PyUnicode_KIND(a) == PyUnicode_KIND(b)
           && memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)(size * PyUnicode_KIND(a))) == 0;
}

/* Which key an exact-string key of a task dict is. */
static int
task_key(PyObject *key)
{
    static PyObject **names[3] = {&s_content, &s_status, &s_notes};
    for (int k = 0; k < 3; k++) {
        if (key == g_seen[k] || key == *names[k]) {
            return k;
        }
    }
    if (ready_str(key) < 0) {
        PyErr_Clear();
        return K_OTHER;
    }
    for (int k = 0; k < 3; k++) {
        if (same_text(key, *names[k])) {
            Py_XSETREF(g_seen[k], Py_NewRef(key));
            return k;
        }
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(g_team_keys); i++) {
        PyObject *team = PyTuple_GET_ITEM(g_team_keys, i);
        if (PyUnicode_CheckExact(team) && same_text(key, team)) {
            return K_TEAM;
        }
    }
    return K_OTHER;
}


/* The status an exact-string wire name stands for (borrowed), or NULL with KeyError: what
 * looking it up in the lookup dict gives. */
static PyObject *
wire_status(PyObject *wire)
{
    if (g_wire_count < 0) {
        return required(g_lookup, wire);
    }
    for (int i = 0; i < g_wire_count; i++) {
        if (wire == g_wire_key[i]) {
            return g_wire_status[i];
        }
    }
    if (ready_str(wire) < 0) {
        return NULL;
    }
    for (int i = 0; i < g_wire_count; i++) {
        if (same_text(wire, g_wire_key[i])) {
            return g_wire_status[i];
        }
    }
    PyErr_SetObject(PyExc_KeyError, wire);
    return NULL;
}

/* take_task for a dict whose keys are all exact strings, read by one walk over its entries
 * (no lookup, so no hashing; with such keys a lookup runs no code, so the walk finds what
 * the lookups would): 1 when it took the task, 0 when a key is something else (nothing
 * read: take_task then looks the keys up), -1 with an error. */
static int
take_plain_task(PyObject *task, Py_ssize_t i, PyObject *contents, PyObject *statuses, PyObject *notes)
{
    PyObject *key, *value, *content = NULL, *wire = NULL, *noted = NULL;
    Py_ssize_t pos = 0, size = PyDict_GET_SIZE(task);
    int team = 0;
    while (PyDict_Next(task, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) {
            return 0;
        }
        switch (task_key(key)) {
        case K_CONTENT:
            content = value;
            break;
        case K_STATUS:
            wire = value;
            break;
        case K_NOTES:
            noted = value;
            break;
        case K_TEAM:
            team = 1;
            break;
        default:
            break;
        }
    }
    if (content == NULL || wire == NULL) {
        PyErr_SetObject(PyExc_KeyError, content == NULL ? s_content : s_status);
        return -1;
    }
    PyObject *status = PyUnicode_CheckExact(content) && PyUnicode_CheckExact(wire) ? wire_status(wire) : NULL;
    if (status == NULL || status == g_blocked) {
        if (status == g_blocked) {
            PyErr_SetString(PyExc_TypeError, "a team plan's status");
        } else if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "content and status must be strings");
        }
        return -1;
    }
    PyObject *cell = Py_None;
    if (size != 2) {
        if (noted == NULL || noted == Py_None || size != 3) {
            if (team) {
                PyErr_SetString(PyExc_TypeError, "a team plan's field");
                return -1;
            }
        }
        if (noted != NULL && noted != Py_None) {
            if (!PyList_CheckExact(noted)) {
                PyErr_SetString(PyExc_TypeError, "notes must be a list");
                return -1;
            }
            for (Py_ssize_t k = 0; k < PyList_GET_SIZE(noted); k++) {
                if (!PyUnicode_CheckExact(PyList_GET_ITEM(noted, k))) {
                    PyErr_SetString(PyExc_TypeError, "notes must be strings");
                    return -1;
                }
            }
            cell = noted;
        }
    }
    /* nothing above ran code or allocated: the dict's references are still good */
    PyList_SET_ITEM(contents, i, Py_NewRef(content));
    PyList_SET_ITEM(statuses, i, Py_NewRef(status));
    PyList_SET_ITEM(notes, i, Py_NewRef(cell));
    return 1;
}

/* One task dict into place i of the three columns (made with that size); 0 on success. */
static int
take_task(PyObject *task, Py_ssize_t i, PyObject *contents, PyObject *statuses, PyObject *notes)
{
    if (!PyDict_CheckExact(task)) {
        PyErr_SetString(PyExc_TypeError, "a task must be a dict");
        return -1;
    }
    int plain = take_plain_task(task, i, contents, statuses, notes);
    if (plain != 0) {
        return plain < 0 ? -1 : 0;
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

/* build_row for a host's list of task dicts that all take the plain path, read in place:
 * no snapshot. Nothing between the first read and the last runs code or allocates (the
 * column lists are made first, and the list's length is read again after that), so the
 * list cannot change meanwhile. NULL with no error set when a task needs the careful path
 * (nothing is kept: the caller reads the row again from a snapshot). */
static PyObject *
plain_row(PyObject *name, PyObject *tasks)
{
    Py_ssize_t count = PyList_GET_SIZE(tasks);
    PyObject *contents = PyList_New(count), *statuses = PyList_New(count), *notes = PyList_New(count);
    PyObject *row = NULL;
    int plain = contents != NULL && statuses != NULL && notes != NULL && PyList_GET_SIZE(tasks) == count;
    for (Py_ssize_t i = 0; plain > 0 && i < count; i++) {
        PyObject *task = PyList_GET_ITEM(tasks, i);
        plain = PyDict_CheckExact(task) ? take_plain_task(task, i, contents, statuses, notes) : 0;
    }
    if (plain > 0) {
        row = PyTuple_Pack(4, name, contents, statuses, notes);
    } else if (plain == 0) {
        PyErr_Clear(); /* only an allocation failure is left set, and the careful path meets it again */
    }
    Py_XDECREF(contents);
    Py_XDECREF(statuses);
    Py_XDECREF(notes);
    return row;
}

static PyObject *
one_row(PyObject *phase)
{
    if (!PyDict_CheckExact(phase)) {
        PyErr_SetString(PyExc_TypeError, "a phase must be a dict");
        return NULL;
    }
    /* our own references, as in take_task: looking "tasks" up can run a key's __eq__, and
     * what follows allocates (a collection can run code that takes them out of the dict) */
    PyObject *name = Py_XNewRef(required(phase, s_name));
    PyObject *tasks = name == NULL ? NULL : Py_XNewRef(required(phase, s_tasks));
    PyObject *items = NULL, *row = NULL;
    if (tasks != NULL && PyUnicode_CheckExact(name) && (PyList_CheckExact(tasks) || PyTuple_CheckExact(tasks))) {
        if (PyList_CheckExact(tasks)) {
            row = plain_row(name, tasks);
        }
        if (row == NULL && !PyErr_Occurred()) {
            items = PySequence_Tuple(tasks); /* a snapshot of the host's list */
        }
    } else if (tasks != NULL) {
        PyErr_SetString(PyExc_TypeError, "a phase needs a string name and a list of tasks");
    }
    if (items != NULL) {
        row = build_row(name, items, take_task);
        Py_DECREF(items);
    }
    Py_XDECREF(tasks);
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

/* Task i of a phase into place i of the columns, and its id into ids unless that is NULL
 * (then the task may have none); 0 on success. */
static int
take_value_id(PyObject *task, Py_ssize_t i, PyObject *contents, PyObject *statuses, PyObject *notes, PyObject *ids)
{
    if (Py_TYPE(task) != g_task_type) {
        PyErr_SetString(PyExc_TypeError, "a task must be a Task");
        return -1;
    }
    PyObject *field[8];
    for (int k = 0; k < 8; k++) {
        if ((field[k] = slot(task, g_slot[k])) == NULL) {
            return -1;
        }
    }
    if (!PyUnicode_CheckExact(field[0]) || !is_note_tuple(field[2]) || status_index(field[1]) < 0
        || field[3] != Py_None || field[4] != Py_None || !PyTuple_CheckExact(field[5])
        || PyTuple_GET_SIZE(field[5]) || field[7] != Py_None
        || (field[6] != Py_None && (ids == NULL || !PyUnicode_CheckExact(field[6])))) {
        /* a team plan's fields (or a bad value): the general engine carries them */
        PyErr_SetString(PyExc_TypeError, "not a plain task of the reference's statuses");
        return -1;
    }
    PyList_SET_ITEM(contents, i, Py_NewRef(field[0]));
    PyList_SET_ITEM(statuses, i, Py_NewRef(field[1]));
    PyList_SET_ITEM(notes, i, Py_NewRef(field[2]));
    if (ids != NULL) {
        PyList_SET_ITEM(ids, i, Py_NewRef(field[6]));
    }
    return 0;
}

static int
take_value(PyObject *task, Py_ssize_t i, PyObject *contents, PyObject *statuses, PyObject *notes)
{
    return take_value_id(task, i, contents, statuses, notes, NULL);
}

/* A Phase value's name and tasks tuple (borrowed), checked; -1 with an error if not one. */
static int
phase_fields(PyObject *phase, PyObject **name, PyObject **tasks)
{
    if (Py_TYPE(phase) != g_phase_type) {
        PyErr_SetString(PyExc_TypeError, "a phase must be a Phase");
        return -1;
    }
    *name = slot(phase, g_phase_slot[0]);
    *tasks = *name == NULL ? NULL : slot(phase, g_phase_slot[1]);
    if (*tasks == NULL) {
        return -1;
    }
    if (!PyUnicode_CheckExact(*name) || !PyTuple_CheckExact(*tasks)) {
        PyErr_SetString(PyExc_TypeError, "a phase's name must be a string, its tasks a tuple");
        return -1;
    }
    return 0;
}

static PyObject *
value_row(PyObject *phase)
{
    PyObject *name, *tasks;
    return phase_fields(phase, &name, &tasks) < 0 ? NULL : build_row(name, tasks, take_value);
}

static PyObject *
value_rows(PyObject *module, PyObject *phases)
{
    return each_row(phases, value_row);
}

/* value_row with the tasks' ids as a fifth list: a team plan's phase whose tasks carry an
 * id and nothing else of a team's. Name and tasks are held meanwhile, as in build_row. */
static PyObject *
id_row(PyObject *phase)
{
    PyObject *name, *tasks;
    if (phase_fields(phase, &name, &tasks) < 0) {
        return NULL;
    }
    Py_INCREF(name);
    Py_INCREF(tasks);
    Py_ssize_t count = PyTuple_GET_SIZE(tasks);
    PyObject *lists[4] = {PyList_New(count), PyList_New(count), PyList_New(count), PyList_New(count)};
    PyObject *row = NULL;
    if (lists[0] != NULL && lists[1] != NULL && lists[2] != NULL && lists[3] != NULL) {
        Py_ssize_t i = 0;
        while (i < count && take_value_id(PyTuple_GET_ITEM(tasks, i), i, lists[0], lists[1], lists[2], lists[3]) == 0) {
            i++;
        }
        if (i == count) {
            row = PyTuple_Pack(5, name, lists[0], lists[1], lists[2], lists[3]);
        }
    }
    for (int k = 0; k < 4; k++) {
        Py_XDECREF(lists[k]);
    }
    Py_DECREF(name);
    Py_DECREF(tasks);
    return row;
}

static PyObject *
id_rows(PyObject *module, PyObject *phases)
{
    return each_row(phases, id_row);
}

/* -- parts: the summary lines and details.phases from columns ------------------------- */

/* A column's four fields, and its ids when asked for and it has them (else NULL);
 * read_column takes a reference of its own to each (refs). */
#define COLUMN_REFS 5
typedef struct {
    PyObject *name, *contents, *statuses, *notes, *ids;
} Column;

/* The column's "ids" list into refs[4] (NULL when it has none); -1 on a bad one. */
static int
read_ids(PyObject *col, PyObject *refs[COLUMN_REFS])
{
    refs[4] = PyObject_GetAttr(col, s_ids);
    if (refs[4] == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            return -1;
        }
        PyErr_Clear();
        return 0;
    }
    if (!PyList_CheckExact(refs[4]) || PyList_GET_SIZE(refs[4]) != PyList_GET_SIZE(refs[1])) {
        PyErr_SetString(PyExc_TypeError, "a column's ids are a list of its length");
        return -1;
    }
    return 0;
}

static int
read_column(PyObject *borrowed, Column *out, PyObject *refs[COLUMN_REFS], int want_ids)
{
    /* the attribute lookups can run Python code that drops the caller's list's reference */
    PyObject *col = Py_NewRef(borrowed);
    refs[0] = PyObject_GetAttr(col, s_name);
    refs[1] = refs[0] ? PyObject_GetAttr(col, s_contents) : NULL;
    refs[2] = refs[1] ? PyObject_GetAttr(col, s_statuses) : NULL;
    refs[3] = refs[2] ? PyObject_GetAttr(col, s_notes) : NULL;
    int failed = refs[3] == NULL || (want_ids && PyList_CheckExact(refs[1]) && read_ids(col, refs) < 0);
    Py_DECREF(col);
    if (failed) {
        return -1;
    }
    /* checked after the lookups: the last of them can run code that changes the lists */
    if (!PyUnicode_Check(refs[0]) || !PyList_CheckExact(refs[1]) || !PyList_CheckExact(refs[2])
        || !PyList_CheckExact(refs[3]) || PyList_GET_SIZE(refs[1]) != PyList_GET_SIZE(refs[2])
        || PyList_GET_SIZE(refs[1]) != PyList_GET_SIZE(refs[3])
        || (refs[4] != NULL && PyList_GET_SIZE(refs[4]) != PyList_GET_SIZE(refs[1]))) {
        PyErr_SetString(PyExc_TypeError, "a column is a name and three lists of one length");
        return -1;
    }
    out->name = refs[0];
    out->contents = refs[1];
    out->statuses = refs[2];
    out->notes = refs[3];
    out->ids = refs[4];
    return 0;
}

static void
drop_refs(PyObject *refs[COLUMN_REFS])
{
    for (int i = 0; i < COLUMN_REFS; i++) {
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

/* -- a text written in two passes: measured, then copied into one string ----------------- */

/* Pass 1 (data == NULL) counts the characters and the widest one; pass 2 copies them into
 * the string made from those counts: no piece, list or join. Nothing between the passes
 * runs Python code (a str is not an object the collector tracks, so making it runs no
 * collection), so both read the same cells; pass 2 still checks that it stays in bounds. */
typedef struct {
    PyObject *str;
    void *data;
    int kind;
    int overflow;
    Py_UCS4 maxchar;
    Py_ssize_t size, cap, lines;
} Writer;

static inline void
w_chars(Writer *w, int kind, const void *data, Py_ssize_t start, Py_ssize_t n, Py_UCS4 maxchar)
{
    if (w->data == NULL) {
        w->size += n;
        if (maxchar > w->maxchar) {
            w->maxchar = maxchar;
        }
        return;
    }
    if (n > w->cap - w->size || kind > w->kind) {
        w->overflow = 1;
        return;
    }
    if (kind == w->kind) {
        memcpy((char *)w->data + w->size * kind, (const char *)data + start * kind, (size_t)(n * kind));
    } else if (kind == PyUnicode_1BYTE_KIND && w->kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS1 *from = (const Py_UCS1 *)data + start;
        Py_UCS2 *to = (Py_UCS2 *)w->data + w->size;
        for (Py_ssize_t i = 0; i < n; i++) {
            to[i] = from[i];
        }
    } else if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *from = (const Py_UCS1 *)data + start;
        Py_UCS4 *to = (Py_UCS4 *)w->data + w->size;
        for (Py_ssize_t i = 0; i < n; i++) {
            to[i] = from[i];
        }
    } else {
        const Py_UCS2 *from = (const Py_UCS2 *)data + start;
        Py_UCS4 *to = (Py_UCS4 *)w->data + w->size;
        for (Py_ssize_t i = 0; i < n; i++) {
            to[i] = from[i];
        }
    }
    w->size += n;
}

static inline void
w_str(Writer *w, PyObject *s)
{
    w_chars(w, PyUnicode_KIND(s), PyUnicode_DATA(s), 0, PyUnicode_GET_LENGTH(s), PyUnicode_MAX_CHAR_VALUE(s));
}

static inline void
w_ascii(Writer *w, const char *s, Py_ssize_t n)
{
    w_chars(w, PyUnicode_1BYTE_KIND, s, 0, n, 127);
}

/* A newline before every line but the first. */
static inline void
w_line(Writer *w)
{
    if (w->lines++) {
        w_ascii(w, "\n", 1);
    }
}

/* After pass 1: the string to fill, and the writer set for pass 2; 0 on success. */
static int
w_start(Writer *w)
{
    w->str = PyUnicode_New(w->size, w->maxchar);
    if (w->str == NULL) {
        return -1;
    }
    w->data = PyUnicode_DATA(w->str);
    w->kind = PyUnicode_KIND(w->str);
    w->cap = w->size;
    w->size = w->lines = 0;
    return 0;
}

/* After pass 2: the string (a new reference), or NULL if pass 2 did not fill it exactly. */
static PyObject *
w_finish(Writer *w)
{
    if (w->overflow || w->size != w->cap) {
        PyErr_SetString(PyExc_ValueError, "a column changed while it was read");
        Py_CLEAR(w->str);
        return NULL;
    }
    PyObject *out = w->str;
    w->str = NULL;
    return out;
}


/* -- parts: the summary lines and details.phases from columns ------------------------- */

typedef struct {
    PyObject *prefix[4]; /* the summary's "    ○ " etc., by status */
    Writer tree, remaining;
    Py_ssize_t current;  /* the first phase with an open task, or -1 */
} Summary;

/* " (+1 note)", " (+2 notes)", ...: written into buf (room for 32), its length. */
static Py_ssize_t
note_count_ascii(char *buf, Py_ssize_t count)
{
    char digits[24];
    int n = 0;
    size_t value = (size_t)count;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value && n < (int)sizeof(digits));
    Py_ssize_t size = 0;
    memcpy(buf, " (+", 3);
    size = 3;
    while (n) {
        buf[size++] = digits[--n];
    }
    if (count == 1) {
        memcpy(buf + size, " note)", 6);
        return size + 6;
    }
    memcpy(buf + size, " notes)", 7);
    return size + 7;
}

/* The lines of one note under the active task: "        " + each line (split on "\n"). */
static void
note_lines(Writer *w, PyObject *note)
{
    int kind = PyUnicode_KIND(note);
    const void *data = PyUnicode_DATA(note);
    Py_ssize_t size = PyUnicode_GET_LENGTH(note), start = 0;
    /* every character but the newlines is written: the note's width is the lines' width */
    Py_UCS4 maxchar = PyUnicode_MAX_CHAR_VALUE(note);
    for (;;) {
        Py_ssize_t end = start;
        while (end < size && PyUnicode_READ(kind, data, end) != '\n') {
            end++;
        }
        w_line(w);
        w_ascii(w, "        ", 8);
        w_chars(w, kind, data, start, end - start, maxchar);
        if (end >= size) {
            return;
        }
        start = end + 1;
    }
}

/* The cells of task ``i`` of ``col`` as a writer reads them: content, notes cell, status
 * index, note count. In pass 1 (``measure``) every cell is checked: the notes of every task
 * when ``all_notes`` (Markdown prints them all), else only the active task's (the summary's).
 * -1 with an error (pass 1 only); 1 when pass 2 meets a cell pass 1 would have refused
 * (cannot happen: the writer then gives up without an error); 0 otherwise. Calls no Python
 * code, so the borrowed references stay valid while the writer uses them. */
static int
task_cells(Column *col, Py_ssize_t i, int measure, int all_notes, PyObject **content,
           PyObject **cell, int *status, Py_ssize_t *noted)
{
    *content = PyList_GET_ITEM(col->contents, i);
    *cell = PyList_GET_ITEM(col->notes, i);
    *status = status_index(PyList_GET_ITEM(col->statuses, i));
    *noted = 0;
    if (*cell != Py_None) {
        *noted = PyList_CheckExact(*cell) || PyTuple_CheckExact(*cell) ? Py_SIZE(*cell) : -1;
    }
    if (!measure) {
        return *status < 0 || *noted < 0;
    }
    if (*status < 0) {
        PyErr_SetString(PyExc_TypeError, "not one of the reference's four statuses");
        return -1;
    }
    if (*noted < 0) {
        PyErr_SetString(PyExc_TypeError, "notes must be None, a list or a tuple");
        return -1;
    }
    if (!PyUnicode_Check(*content)) {
        PyErr_SetString(PyExc_TypeError, "content must be a string");
        return -1;
    }
    if (ready_str(*content) < 0) {
        return -1;
    }
    for (Py_ssize_t k = 0; (all_notes || *status == 1) && k < *noted; k++) {
        PyObject *note = PyList_CheckExact(*cell) ? PyList_GET_ITEM(*cell, k) : PyTuple_GET_ITEM(*cell, k);
        if (!PyUnicode_Check(note)) {
            PyErr_SetString(PyExc_TypeError, "a note must be a string");
            return -1;
        }
        if (ready_str(note) < 0) {
            return -1;
        }
    }
    return 0;
}

/* One column's tree lines and open-task lines. In pass 1 (measure) it also checks every
 * cell, and counts the open tasks; 0 on success, -1 with an error (pass 1 only). */
static int
summary_column(Summary *s, Column *col, Py_ssize_t number, int measure)
{
    Writer *tree = &s->tree, *rem = &s->remaining;
    if (measure && ready_str(col->name) < 0) {
        return -1;
    }
    w_line(tree);
    w_ascii(tree, "  ", 2);
    w_str(tree, col->name);
    w_ascii(tree, ":", 1);
    Py_ssize_t count = PyList_GET_SIZE(col->contents);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *content, *cell;
        int status;
        Py_ssize_t noted;
        int read = task_cells(col, i, measure, 0, &content, &cell, &status, &noted);
        if (read < 0) {
            return -1;
        }
        if (read > 0) {
            tree->overflow = 1; /* cannot happen: pass 1 checked the same cells */
            return 0;
        }
        if (status < 2) {
            w_line(rem);
            w_ascii(rem, "  - ", 4);
            w_str(rem, content);
            w_ascii(rem, " [", 2);
            w_str(rem, g_wire[status]);
            w_ascii(rem, "] (", 3);
            w_str(rem, col->name);
            w_ascii(rem, ")", 1);
            if (s->current < 0) {
                s->current = number;
            }
        }
        w_line(tree);
        w_str(tree, s->prefix[status]);
        w_str(tree, content);
        if (noted) {
            char buf[32];
            w_ascii(tree, buf, note_count_ascii(buf, noted));
            for (Py_ssize_t k = 0; status == 1 && k < noted; k++) {
                if (k) {
                    w_line(tree);
                    w_ascii(tree, "        ---", 11);
                }
                note_lines(tree, PyList_CheckExact(cell) ? PyList_GET_ITEM(cell, k) : PyTuple_GET_ITEM(cell, k));
            }
        }
    }
    return 0;
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

/* A task dict's "id" (last, as dump_task puts it), from place i of ids, unless None. The
 * dict's allocations can have run code that shortened the list: its length is read again. */
static int
add_id(PyObject *task, PyObject *ids, Py_ssize_t i)
{
    if (i >= PyList_GET_SIZE(ids)) {
        PyErr_SetString(PyExc_ValueError, "a column changed while it was read");
        return -1;
    }
    PyObject *ident = Py_NewRef(PyList_GET_ITEM(ids, i));
    int failed = ident != Py_None && PyDict_SetItem(task, s_id, ident) < 0;
    Py_DECREF(ident);
    return failed ? -1 : 0;
}

/* One phase's details dict. Making dicts can run a collection, and so code that changes
 * the column: each cell is read again, checked, and held while it is used. */
static PyObject *
phase_dict(Column *col)
{
    Py_ssize_t count = PyList_GET_SIZE(col->contents);
    PyObject *tasks = PyList_New(count);
    if (tasks == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        Cell c;
        PyObject *task = read_cell(col, i, &c) == 0 ? task_dict(c.content, c.status, c.cell, c.noted) : NULL;
        drop_cell(&c);
        if (task != NULL && col->ids != NULL && add_id(task, col->ids, i) < 0) {
            Py_CLEAR(task);
        }
        if (task == NULL) {
            Py_DECREF(tasks);
            return NULL;
        }
        if (i >= PyList_GET_SIZE(tasks)) { /* cannot happen: tasks is ours */
            Py_DECREF(task);
            continue;
        }
        PyList_SET_ITEM(tasks, i, task);
    }
    PyObject *phase = PyDict_New();
    if (phase == NULL || PyDict_SetItem(phase, s_name, col->name) < 0 || PyDict_SetItem(phase, s_tasks, tasks) < 0) {
        Py_XDECREF(phase);
        phase = NULL;
    }
    Py_DECREF(tasks);
    return phase;
}

/* The columns of a list, each with references of our own to its fields. */
typedef struct {
    Column *cols;
    PyObject **refs; /* COLUMN_REFS per column */
    Py_ssize_t size;
} Columns;

static void
columns_clear(Columns *cs)
{
    for (Py_ssize_t i = 0; i < COLUMN_REFS * cs->size; i++) {
        Py_CLEAR(cs->refs[i]);
    }
    PyMem_Free(cs->cols);
    PyMem_Free(cs->refs);
    cs->cols = NULL;
    cs->refs = NULL;
    cs->size = 0;
}

/* Every column of cols, read once; 0 on success. Reading an attribute can run code that
 * changes cols: its length is read again before each column, as a list iterator does. */
static int
columns_read(PyObject *cols, Columns *cs, int want_ids)
{
    Py_ssize_t room = 0;
    cs->cols = NULL;
    cs->refs = NULL;
    cs->size = 0;
    for (Py_ssize_t n = 0; n < PyList_GET_SIZE(cols); n++) {
        if (cs->size == room) {
            room = room ? 2 * room : Py_MAX(PyList_GET_SIZE(cols), 4);
            Column *more = PyMem_Realloc(cs->cols, (size_t)room * sizeof(Column));
            if (more == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            cs->cols = more;
            PyObject **refs = PyMem_Realloc(cs->refs, (size_t)room * COLUMN_REFS * sizeof(PyObject *));
            if (refs == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            cs->refs = refs;
        }
        PyObject **refs = cs->refs + COLUMN_REFS * cs->size;
        for (int k = 0; k < COLUMN_REFS; k++) {
            refs[k] = NULL;
        }
        cs->size++;
        if (read_column(PyList_GET_ITEM(cols, n), &cs->cols[cs->size - 1], refs, want_ids) < 0) {
            return -1;
        }
    }
    return 0;
}

static PyObject *
parts(PyObject *module, PyObject *args)
{
    PyObject *cols, *prefixes, *result = NULL, *dumped = NULL;
    if (!ready() || !PyArg_ParseTuple(args, "O!O!:parts", &PyList_Type, &cols, &PyTuple_Type, &prefixes)) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(prefixes) != 4) {
        PyErr_SetString(PyExc_ValueError, "parts: four prefixes");
        return NULL;
    }
    Summary s = {{NULL}};
    s.current = -1;
    Columns cs;
    Py_INCREF(prefixes);
    for (int i = 0; i < 4; i++) {
        s.prefix[i] = PyTuple_GET_ITEM(prefixes, i);
        if (!PyUnicode_Check(s.prefix[i]) || ready_str(s.prefix[i]) < 0) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "parts: prefixes must be strings");
            }
            Py_DECREF(prefixes);
            return NULL;
        }
    }
    if (columns_read(cols, &cs, 0) < 0) {
        goto done;
    }
    /* pass 1 checks and measures, pass 2 writes: nothing in between runs Python code */
    for (Py_ssize_t n = 0; n < cs.size; n++) {
        if (summary_column(&s, &cs.cols[n], n, 1) < 0) {
            goto done;
        }
    }
    Py_ssize_t opened = s.remaining.lines;
    if (w_start(&s.tree) < 0 || w_start(&s.remaining) < 0) {
        goto done;
    }
    s.current = -1;
    for (Py_ssize_t n = 0; n < cs.size; n++) {
        summary_column(&s, &cs.cols[n], n, 0);
    }
    PyObject *tree = w_finish(&s.tree), *remaining = tree ? w_finish(&s.remaining) : NULL;
    if (remaining == NULL) {
        Py_XDECREF(tree);
        goto done;
    }
    dumped = PyList_New(cs.size);
    for (Py_ssize_t n = 0; dumped != NULL && n < cs.size; n++) {
        PyObject *phase = phase_dict(&cs.cols[n]);
        if (phase == NULL) {
            Py_CLEAR(dumped);
            break;
        }
        PyList_SET_ITEM(dumped, n, phase);
    }
    if (dumped != NULL) {
        result = Py_BuildValue("(NNnNn)", tree, remaining, opened, dumped, s.current);
    } else {
        Py_DECREF(tree);
        Py_DECREF(remaining);
    }
done:
    Py_XDECREF(s.tree.str);
    Py_XDECREF(s.remaining.str);
    columns_clear(&cs);
    Py_DECREF(prefixes);
    return result;
}

/* details.phases alone: what parts writes last, for callers that write their own text; a
 * column with an "ids" list gives each task dict with an id its "id" too. */
static PyObject *
dumped(PyObject *module, PyObject *cols)
{
    if (!ready()) {
        return NULL;
    }
    if (!PyList_Check(cols)) {
        PyErr_SetString(PyExc_TypeError, "dumped: cols must be a list");
        return NULL;
    }
    Columns cs;
    PyObject *out = NULL;
    if (columns_read(cols, &cs, 1) == 0) {
        out = PyList_New(cs.size);
        for (Py_ssize_t n = 0; out != NULL && n < cs.size; n++) {
            PyObject *phase = phase_dict(&cs.cols[n]);
            if (phase == NULL) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, n, phase);
        }
    }
    columns_clear(&cs);
    return out;
}

/* -- index: the lookups a working copy needs ------------------------------------------- */

/* One column into the lookups: the first phase of a name and of each content wins. */
static int
index_column(PyObject *col, PyObject *by_name, PyObject *by_content, PyObject *active, Py_ssize_t *total)
{
    PyObject *refs[COLUMN_REFS] = {NULL};
    Column c;
    int failed = read_column(col, &c, refs, 0) < 0 || PyDict_SetDefault(by_name, c.name, col) == NULL;
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

/* -- columns: JSON phases as column objects, with their lookups -------------------------- */

/* Where a column type keeps the four fields columns() sets; the type of the last call. */
static struct {
    PyTypeObject *type;
    Py_ssize_t offset[4]; /* name, contents, statuses, notes */
} g_col;

/* The offset of a writable object slot of type (or of a base), or -1 with TypeError. */
static Py_ssize_t
member_offset(PyTypeObject *type, PyObject *field)
{
    PyObject *descr = PyObject_GetAttr((PyObject *)type, field);
    Py_ssize_t offset = -1;
    if (descr != NULL && PyObject_TypeCheck(descr, &PyMemberDescr_Type)
        && PyDescr_TYPE(descr) != NULL && PyType_IsSubtype(type, PyDescr_TYPE(descr))) {
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type == T_OBJECT_EX && !(member->flags & READONLY)) {
            offset = member->offset;
        }
    }
    Py_XDECREF(descr);
    if (offset < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "columns: %s.%U is not a writable slot", type->tp_name, field);
    }
    return offset;
}

/* Take type as the column type: its fields all in slots of its own classes; 0 on success. */
static int
column_type(PyTypeObject *type)
{
    if (g_col.type == type) {
        return 0;
    }
    for (PyTypeObject *t = type; t != &PyBaseObject_Type; t = t->tp_base) {
        if (t == NULL || !(t->tp_flags & Py_TPFLAGS_HEAPTYPE) || t->tp_dictoffset || t->tp_itemsize) {
            PyErr_SetString(PyExc_TypeError, "columns: the prototype's class must keep its fields in __slots__");
            return -1;
        }
    }
    PyObject *fields[4] = {s_name, s_contents, s_statuses, s_notes};
    Py_ssize_t offset[4];
    for (int i = 0; i < 4; i++) {
        if ((offset[i] = member_offset(type, fields[i])) < 0) {
            return -1;
        }
    }
    Py_XSETREF(g_col.type, (PyTypeObject *)Py_NewRef(type));
    for (int i = 0; i < 4; i++) {
        g_col.offset[i] = offset[i];
    }
    return 0;
}

/* A new column: every slot as the prototype has it, then the four fields of row. */
static PyObject *
new_column(PyObject *proto, PyObject *row)
{
    PyTypeObject *type = Py_TYPE(proto);
    PyObject *col = type->tp_alloc(type, 0);
    if (col == NULL) {
        return NULL;
    }
    for (PyTypeObject *t = type; t != &PyBaseObject_Type; t = t->tp_base) {
        for (PyMemberDef *m = t->tp_members; m != NULL && m->name != NULL; m++) {
            if (m->type == T_OBJECT_EX || m->type == T_OBJECT) {
                PyObject **to = (PyObject **)((char *)col + m->offset);
                Py_XSETREF(*to, Py_XNewRef(*(PyObject **)((char *)proto + m->offset)));
            }
        }
    }
    for (int i = 0; i < 4; i++) {
        PyObject **to = (PyObject **)((char *)col + g_col.offset[i]);
        Py_XSETREF(*to, Py_NewRef(PyTuple_GET_ITEM(row, i)));
    }
    return col;
}

/* One loaded column into the lookups (its lists are new and its strings exact, so neither
 * hashing nor comparing them runs code); 0 on success. */
static int
index_row(PyObject *col, PyObject *row, PyObject *by_name, PyObject *by_content, PyObject *active)
{
    if (PyDict_SetDefault(by_name, PyTuple_GET_ITEM(row, 0), col) == NULL) {
        return -1;
    }
    PyObject *contents = PyTuple_GET_ITEM(row, 1), *statuses = PyTuple_GET_ITEM(row, 2);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(contents); i++) {
        if (PyDict_SetDefault(by_content, PyList_GET_ITEM(contents, i), col) == NULL) {
            return -1;
        }
        if (PyList_GET_ITEM(statuses, i) == g_status[1]) {
            PyObject *key = Py_BuildValue("(On)", col, i);
            int failed = key == NULL || PyDict_SetItem(active, key, Py_None) < 0;
            Py_XDECREF(key);
            if (failed) {
                return -1;
            }
        }
    }
    return 0;
}

static PyObject *
columns(PyObject *module, PyObject *args)
{
    PyObject *phases, *proto;
    if (!ready() || !PyArg_ParseTuple(args, "OO:columns", &phases, &proto)) {
        return NULL;
    }
    if (column_type(Py_TYPE(proto)) < 0) {
        return NULL;
    }
    Py_INCREF(proto);
    PyObject *items = PySequence_Tuple(phases); /* a snapshot, as in rows */
    PyObject *by_name = PyDict_New(), *by_content = PyDict_New(), *active = PyDict_New();
    PyObject *cols = items ? PyList_New(PyTuple_GET_SIZE(items)) : NULL;
    Py_ssize_t total = 0;
    if (cols == NULL || by_name == NULL || by_content == NULL || active == NULL) {
        goto fail;
    }
    for (Py_ssize_t n = 0; n < PyTuple_GET_SIZE(items); n++) {
        PyObject *row = one_row(PyTuple_GET_ITEM(items, n));
        PyObject *col = row ? new_column(proto, row) : NULL;
        if (col == NULL) {
            Py_XDECREF(row);
            goto fail;
        }
        PyList_SET_ITEM(cols, n, Py_NewRef(col)); /* and held: a collection may run code */
        /* The collector need not look at the column or its three lists: they hold strings,
         * statuses, None and the host's lists of strings (later also tuples of strings and
         * ints), and nothing they reach refers back to them, so they are never part of a
         * reference cycle. Left tracked, a 10,000-task list is traversed again and again by
         * the collections its own results trigger, and each call moves 400 more objects into
         * the oldest generation, which makes full collections come sooner. */
        for (int k = 1; k < 4; k++) {
            PyObject_GC_UnTrack(PyTuple_GET_ITEM(row, k));
        }
        PyObject_GC_UnTrack(col);
        total += PyList_GET_SIZE(PyTuple_GET_ITEM(row, 1));
        int failed = index_row(col, row, by_name, by_content, active);
        Py_DECREF(col);
        Py_DECREF(row);
        if (failed < 0) {
            goto fail;
        }
    }
    Py_DECREF(items);
    Py_DECREF(proto);
    /* nor at the lookups, for the same reason (a later insertion of a column tracks a dict again) */
    PyObject_GC_UnTrack(by_name);
    PyObject_GC_UnTrack(by_content);
    return Py_BuildValue("(NNNNn)", cols, by_name, by_content, active, total);
fail:
    Py_XDECREF(items);
    Py_XDECREF(cols);
    Py_XDECREF(by_name);
    Py_XDECREF(by_content);
    Py_XDECREF(active);
    Py_DECREF(proto);
    return NULL;
}

/* -- ops: tool arguments of the common plain shape as op values ------------------------- */

/* The keys an op dict is read by (an entry of init's list: phase and items). */
enum { F_TASK, F_PHASE, F_TEXT, F_ITEMS, F_LIST, F_OP, F_KEYS };
static const char *g_field_text[F_KEYS] = {"task", "phase", "text", "items", "list", "op"};
static PyObject *s_field[F_KEYS], *g_field_seen[F_KEYS], *s_ops, *g_ops_seen;

/* The op kinds setup_ops() was given: wire name, class, and the slot of each field (-1:
 * the class has no such field). */
#define OP_KINDS 16
static struct {
    PyObject *name;
    PyTypeObject *type;
    Py_ssize_t offset[F_LIST + 1];
} g_op[OP_KINDS];
static int g_op_count;
static PyTypeObject *g_items_type;   /* init's entries: PhaseItems */
static Py_ssize_t g_items_offset[2]; /* its phase and items */

/* Whether an exact-string key is the one of text (seen: the last such key object). */
static int
is_key(PyObject *key, PyObject *text, PyObject **seen)
{
    if (key == *seen || key == text) {
        return 1;
    }
    if (!same_text(key, text)) {
        return 0;
    }
    Py_XSETREF(*seen, Py_NewRef(key));
    return 1;
}

/* Refuse the arguments: they are not of the plain shape (the schema decides on them). */
static PyObject *
not_plain(const char *why)
{
    PyErr_SetString(PyExc_TypeError, why);
    return NULL;
}

/* The values of a dict's known keys (borrowed), found by one walk over its entries; 0, or
 * -1 with TypeError when a key is not an exact string (a lookup could run its code). */
static int
dict_fields(PyObject *d, PyObject **value, int first, int last)
{
    PyObject *key, *item;
    Py_ssize_t pos = 0;
    for (int k = first; k <= last; k++) {
        value[k] = NULL;
    }
    while (PyDict_Next(d, &pos, &key, &item)) {
        if (!PyUnicode_CheckExact(key) || ready_str(key) < 0) {
            PyErr_Clear();
            not_plain("a key that is not a string");
            return -1;
        }
        for (int k = first; k <= last; k++) {
            if (is_key(key, s_field[k], &g_field_seen[k])) {
                value[k] = item;
                break;
            }
        }
    }
    return 0;
}

/* A snapshot tuple of a non-empty list or tuple of exact strings (items of append and of
 * init's entries), or NULL (TypeError: not plain). */
static PyObject *
plain_texts(PyObject *value)
{
    if (!PyList_CheckExact(value) && !PyTuple_CheckExact(value)) {
        return not_plain("items must be a list of strings");
    }
    PyObject *items = PySequence_Tuple(value);
    if (items == NULL) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(items) == 0) {
        Py_DECREF(items);
        return not_plain("items must not be empty");
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(items); i++) {
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(items, i))) {
            Py_DECREF(items);
            return not_plain("items must be strings");
        }
    }
    return items;
}

/* A value of a slotted class with its slots set (steals the references in values). */
static PyObject *
new_value(PyTypeObject *type, const Py_ssize_t *offset, PyObject **values, int count)
{
    PyObject *obj = type->tp_alloc(type, 0);
    for (int k = 0; k < count; k++) {
        if (offset[k] < 0) {
            Py_XDECREF(values[k]);
        } else if (obj != NULL) {
            Py_XSETREF(*(PyObject **)((char *)obj + offset[k]), values[k]);
        } else {
            Py_XDECREF(values[k]);
        }
        values[k] = NULL;
    }
    return obj;
}

/* One entry of init's list: PhaseItems(phase, tuple(items)). */
static PyObject *
phase_items(PyObject *entry)
{
    PyObject *field[F_KEYS];
    if (!PyDict_CheckExact(entry)) {
        return not_plain("an entry of init's list must be an object");
    }
    if (dict_fields(entry, field, F_PHASE, F_ITEMS) < 0) {
        return NULL;
    }
    if (field[F_PHASE] == NULL || !PyUnicode_CheckExact(field[F_PHASE]) || field[F_ITEMS] == NULL) {
        return not_plain("an entry of init's list needs a phase and items");
    }
    /* references of our own before anything is allocated (a collection can run code) */
    PyObject *values[2] = {Py_NewRef(field[F_PHASE]), Py_NewRef(field[F_ITEMS])};
    Py_SETREF(values[1], plain_texts(values[1]));
    if (values[1] == NULL) {
        Py_DECREF(values[0]);
        return NULL;
    }
    return new_value(g_items_type, g_items_offset, values, 2);
}

/* init's list: a tuple of PhaseItems. */
static PyObject *
phase_list(PyObject *value)
{
    if (!PyList_CheckExact(value) && !PyTuple_CheckExact(value)) {
        return not_plain("init's list must be a list");
    }
    PyObject *entries = PySequence_Tuple(value); /* a snapshot: each entry held by it */
    if (entries == NULL) {
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(entries);
    PyObject *out = PyTuple_New(count);
    for (Py_ssize_t i = 0; out != NULL && i < count; i++) {
        PyObject *item = phase_items(PyTuple_GET_ITEM(entries, i));
        if (item == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, i, item);
    }
    Py_DECREF(entries);
    return out;
}

/* One op dict as its op value. */
static PyObject *
one_op(PyObject *data)
{
    PyObject *field[F_KEYS];
    if (!PyDict_CheckExact(data)) {
        return not_plain("an op must be an object");
    }
    if (dict_fields(data, field, 0, F_OP) < 0) {
        return NULL;
    }
    PyObject *name = field[F_OP];
    int kind = -1;
    if (name != NULL && PyUnicode_CheckExact(name) && ready_str(name) == 0) {
        for (int k = 0; k < g_op_count && kind < 0; k++) {
            if (name == g_op[k].name || same_text(name, g_op[k].name)) {
                kind = k;
            }
        }
    }
    PyErr_Clear();
    if (kind < 0) {
        return not_plain("not one of the op names");
    }
    for (int k = F_TASK; k <= F_TEXT; k++) {
        if (field[k] != NULL && !PyUnicode_CheckExact(field[k])) {
            return not_plain("task, phase and text must be strings");
        }
    }
    /* references of our own before anything is allocated (a collection can run code) */
    PyObject *values[F_LIST + 1];
    for (int k = 0; k <= F_LIST; k++) {
        values[k] = Py_XNewRef(field[k]);
    }
    int failed = 0;
    if (values[F_ITEMS] != NULL) {
        Py_SETREF(values[F_ITEMS], plain_texts(values[F_ITEMS]));
        failed = values[F_ITEMS] == NULL;
    }
    if (!failed && values[F_LIST] != NULL) {
        Py_SETREF(values[F_LIST], phase_list(values[F_LIST]));
        failed = values[F_LIST] == NULL;
    }
    for (int k = 0; k <= F_LIST; k++) {
        if (values[k] == NULL) {
            values[k] = Py_NewRef(Py_None); /* absent fields are None, as the defaults */
        }
    }
    if (failed) {
        for (int k = 0; k <= F_LIST; k++) {
            Py_CLEAR(values[k]);
        }
        return NULL;
    }
    return new_value(g_op[kind].type, g_op[kind].offset, values, F_LIST + 1);
}

static PyObject *
ops(PyObject *module, PyObject *params)
{
    if (!ready() || g_op_count == 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_RuntimeError, "phasetodo._core._speedups.setup_ops() was not called");
        }
        return NULL;
    }
    if (!PyDict_CheckExact(params)) {
        return not_plain("params must be an object");
    }
    PyObject *key, *item, *given = NULL;
    Py_ssize_t pos = 0;
    while (PyDict_Next(params, &pos, &key, &item)) {
        if (!PyUnicode_CheckExact(key) || ready_str(key) < 0) {
            PyErr_Clear();
            return not_plain("a key that is not a string");
        }
        if (is_key(key, s_ops, &g_ops_seen)) {
            given = item;
        }
    }
    if (given == NULL || (!PyList_CheckExact(given) && !PyTuple_CheckExact(given)) || Py_SIZE(given) == 0) {
        return not_plain("ops must be a non-empty list");
    }
    Py_INCREF(given); /* held: making the snapshot allocates, and a collection can run code */
    PyObject *entries = PySequence_Tuple(given); /* a snapshot: each op dict held by it */
    Py_DECREF(given);
    if (entries == NULL) {
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(entries);
    PyObject *out = PyTuple_New(count);
    for (Py_ssize_t i = 0; out != NULL && i < count; i++) {
        PyObject *op = one_op(PyTuple_GET_ITEM(entries, i));
        if (op == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, i, op);
    }
    Py_DECREF(entries);
    return out;
}

/* The op kinds: ((name, class, field names), ...) and init's entry class; every field is
 * one of task, phase, text, items, list. */
static PyObject *
setup_ops(PyObject *module, PyObject *args)
{
    PyObject *kinds, *items_type;
    if (!PyArg_ParseTuple(args, "O!O!:setup_ops", &PyTuple_Type, &kinds, &PyType_Type, &items_type)) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(kinds) > OP_KINDS) {
        PyErr_SetString(PyExc_ValueError, "setup_ops: too many op kinds");
        return NULL;
    }
    Py_ssize_t items_offset[2] = {member_offset((PyTypeObject *)items_type, s_field[F_PHASE]), -1};
    if (items_offset[0] < 0 || (items_offset[1] = member_offset((PyTypeObject *)items_type, s_field[F_ITEMS])) < 0) {
        return NULL;
    }
    for (int k = 0; k < g_op_count; k++) {
        Py_CLEAR(g_op[k].name);
        Py_CLEAR(g_op[k].type);
    }
    g_op_count = 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kinds); k++) {
        PyObject *name, *type, *fields;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(kinds, k), "UO!O!:setup_ops", &name, &PyType_Type, &type,
                              &PyTuple_Type, &fields)) {
            return NULL;
        }
        if (!PyUnicode_CheckExact(name) || ready_str(name) < 0) {
            PyErr_SetString(PyExc_TypeError, "setup_ops: op names must be strings");
            return NULL;
        }
        Py_ssize_t offset[F_LIST + 1] = {-1, -1, -1, -1, -1};
        for (Py_ssize_t f = 0; f < PyTuple_GET_SIZE(fields); f++) {
            PyObject *field = PyTuple_GET_ITEM(fields, f);
            int which = -1;
            for (int j = 0; j <= F_LIST && which < 0; j++) {
                if (PyUnicode_Check(field) && PyUnicode_Compare(field, s_field[j]) == 0) {
                    which = j;
                }
            }
            if (which < 0) {
                PyErr_Format(PyExc_ValueError, "setup_ops: %R is not a field ops() sets", field);
                return NULL;
            }
            if ((offset[which] = member_offset((PyTypeObject *)type, s_field[which])) < 0) {
                return NULL;
            }
        }
        g_op[g_op_count].name = Py_NewRef(name);
        g_op[g_op_count].type = (PyTypeObject *)Py_NewRef(type);
        for (int j = 0; j <= F_LIST; j++) {
            g_op[g_op_count].offset[j] = offset[j];
        }
        g_op_count++;
    }
    Py_XSETREF(g_items_type, (PyTypeObject *)Py_NewRef(items_type));
    g_items_offset[0] = items_offset[0];
    g_items_offset[1] = items_offset[1];
    Py_RETURN_NONE;
}

/* -- scan: the limits' quick pass over the core's ops ----------------------------------- */

/* An op's field (borrowed), or NULL with TypeError when it was never set. */
static PyObject *
op_field(PyObject *op, Py_ssize_t offset)
{
    PyObject *value = *(PyObject **)((char *)op + offset);
    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "scan: a field of an op was never set");
    }
    return value;
}

/* len(text or "") of an exact str or None; -1 with TypeError for anything else (the Python
 * loop, which the caller then runs, reads it). */
static Py_ssize_t
text_size(PyObject *value)
{
    if (value == Py_None) {
        return 0;
    }
    if (!PyUnicode_CheckExact(value)) {
        PyErr_SetString(PyExc_TypeError, "scan: a text field that is not a str");
        return -1;
    }
    return PyUnicode_GET_LENGTH(value);
}

/* One (phase, items) pair of an append or an init entry: 0 within the limits (total grown),
 * 1 past one, -1 with TypeError. */
static int
scan_entry(PyObject *phase, PyObject *items, Py_ssize_t max_content, Py_ssize_t max_name, Py_ssize_t *total)
{
    if (items != Py_None) {
        if (!PyTuple_CheckExact(items) && !PyList_CheckExact(items)) {
            PyErr_SetString(PyExc_TypeError, "scan: items that are not a tuple");
            return -1;
        }
        Py_ssize_t longest = 0, sum = 0;
        for (Py_ssize_t i = 0; i < Py_SIZE(items); i++) {
            PyObject *item = PyTuple_CheckExact(items) ? PyTuple_GET_ITEM(items, i) : PyList_GET_ITEM(items, i);
            if (!PyUnicode_CheckExact(item)) {
                PyErr_SetString(PyExc_TypeError, "scan: an item that is not a str");
                return -1;
            }
            Py_ssize_t size = PyUnicode_GET_LENGTH(item);
            longest = Py_MAX(longest, size);
            sum += size;
        }
        if (longest > max_content) {
            return 1;
        }
        *total += sum;
    }
    Py_ssize_t size = text_size(phase);
    if (size < 0) {
        return -1;
    }
    if (size > max_name) {
        return 1;
    }
    *total += size;
    return 0;
}

static PyObject *
scan(PyObject *module, PyObject *args)
{
    PyObject *ops, *texts;
    Py_ssize_t max_content, max_name, max_note, max_payload;
    if (!ready() || !PyArg_ParseTuple(args, "OnnnnO:scan", &ops, &max_content, &max_name, &max_note, &max_payload,
                                      &texts)) {
        return NULL;
    }
    if (!PyTuple_CheckExact(ops) && !PyList_CheckExact(ops)) {
        PyErr_SetString(PyExc_TypeError, "scan: ops must be a tuple or a list");
        return NULL;
    }
    /* nothing below allocates or calls out: the ops cannot change while they are read */
    Py_ssize_t total = 0;
    int grows = 0;
    for (Py_ssize_t n = 0; n < Py_SIZE(ops); n++) {
        PyObject *op = PyTuple_CheckExact(ops) ? PyTuple_GET_ITEM(ops, n) : PyList_GET_ITEM(ops, n);
        int kind = -1;
        for (int k = 0; k < g_op_count && kind < 0; k++) {
            if (Py_TYPE(op) == g_op[k].type) {
                kind = k;
            }
        }
        if (kind < 0) {
            PyErr_SetString(PyExc_TypeError, "scan: not one of the core's ops");
            return NULL;
        }
        const Py_ssize_t *at = g_op[kind].offset;
        int over = 0;
        if (at[F_ITEMS] >= 0 || at[F_LIST] >= 0) { /* append, init: they can grow the list */
            grows = 1;
            if (at[F_LIST] < 0) {
                PyObject *phase = at[F_PHASE] >= 0 ? op_field(op, at[F_PHASE]) : Py_None;
                PyObject *items = phase ? op_field(op, at[F_ITEMS]) : NULL;
                over = items ? scan_entry(phase, items, max_content, max_name, &total) : -1;
            } else {
                PyObject *entries = op_field(op, at[F_LIST]);
                if (entries != NULL && entries != Py_None && !PyTuple_CheckExact(entries)) {
                    PyErr_SetString(PyExc_TypeError, "scan: init's list that is not a tuple");
                    entries = NULL;
                }
                if (entries == NULL) {
                    return NULL;
                }
                for (Py_ssize_t i = 0; entries != Py_None && i < PyTuple_GET_SIZE(entries) && !over; i++) {
                    PyObject *entry = PyTuple_GET_ITEM(entries, i);
                    if (Py_TYPE(entry) != g_items_type) {
                        PyErr_SetString(PyExc_TypeError, "scan: an entry of init's list that is not PhaseItems");
                        return NULL;
                    }
                    PyObject *phase = op_field(entry, g_items_offset[0]);
                    PyObject *items = phase ? op_field(entry, g_items_offset[1]) : NULL;
                    over = items ? scan_entry(phase, items, max_content, max_name, &total) : -1;
                }
            }
        } else {
            PyObject *task = at[F_TASK] >= 0 ? op_field(op, at[F_TASK]) : Py_None;
            Py_ssize_t size = task ? text_size(task) : -1;
            if (size < 0) {
                return NULL;
            }
            over = size > max_content;
            total += size;
            if (!over && at[F_TEXT] >= 0) { /* note */
                PyObject *text = op_field(op, at[F_TEXT]);
                size = text ? text_size(text) : -1;
                if (size < 0) {
                    return NULL;
                }
                over = size > max_note;
                total += size;
            } else if (!over && at[F_PHASE] >= 0) { /* done, drop, rm (start has no phase) */
                PyObject *phase = op_field(op, at[F_PHASE]);
                size = phase ? text_size(phase) : -1;
                if (size < 0) {
                    return NULL;
                }
                over = size > max_name;
                total += size;
            }
        }
        if (over < 0) {
            return NULL;
        }
        if (over) {
            return PyLong_FromLong(-1);
        }
    }
    return PyLong_FromLong(total <= max_payload ? grows : -1);
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
    PyObject *values[8] = {content, status, cell, Py_None, Py_None, g_empty_tuple, Py_None, Py_None};
    for (int i = 0; i < 8; i++) {
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

/* One note's lines: "  > " + each line (split on "\n"), "  >" for an empty one. */
static void
markdown_note(Writer *w, PyObject *note)
{
    int kind = PyUnicode_KIND(note);
    const void *data = PyUnicode_DATA(note);
    Py_ssize_t size = PyUnicode_GET_LENGTH(note), start = 0;
    Py_UCS4 maxchar = PyUnicode_MAX_CHAR_VALUE(note); /* all but the newlines is written */
    for (;;) {
        Py_ssize_t end = start;
        while (end < size && PyUnicode_READ(kind, data, end) != '\n') {
            end++;
        }
        if (end > start) {
            w_ascii(w, "  > ", 4);
            w_chars(w, kind, data, start, end - start, maxchar);
            w_ascii(w, "\n", 1);
        } else {
            w_ascii(w, "  >\n", 4);
        }
        if (end >= size) {
            return;
        }
        start = end + 1;
    }
}

/* One column's Markdown (every line ends with "\n"; a blank line before all but the first).
 * In pass 1 (measure) it also checks every cell; 0, or -1 with an error (pass 1 only). */
static int
render_column(Writer *w, Column *col, PyObject *const *markers, int first, int measure)
{
    if (measure && ready_str(col->name) < 0) {
        return -1;
    }
    if (!first) {
        w_ascii(w, "\n", 1);
    }
    w_ascii(w, "# ", 2);
    w_str(w, col->name);
    w_ascii(w, "\n", 1);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(col->contents); i++) {
        PyObject *content, *cell;
        int status;
        Py_ssize_t noted;
        int read = task_cells(col, i, measure, 1, &content, &cell, &status, &noted);
        if (read < 0) {
            return -1;
        }
        if (read > 0) {
            w->overflow = 1; /* cannot happen: pass 1 checked the same cells */
            return 0;
        }
        w_ascii(w, "- [", 3);
        w_str(w, markers[status]);
        w_ascii(w, "] ", 2);
        w_str(w, content);
        w_ascii(w, "\n", 1);
        for (Py_ssize_t k = 0; k < noted; k++) {
            if (k) {
                w_ascii(w, "  >\n", 4);
            }
            markdown_note(w, PyList_CheckExact(cell) ? PyList_GET_ITEM(cell, k) : PyTuple_GET_ITEM(cell, k));
        }
    }
    return 0;
}

static PyObject *
render(PyObject *module, PyObject *args)
{
    PyObject *cols, *markers, *result = NULL;
    if (!ready() || !PyArg_ParseTuple(args, "O!O!:render", &PyList_Type, &cols, &PyTuple_Type, &markers)) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(markers) != 4) {
        PyErr_SetString(PyExc_ValueError, "render: four markers");
        return NULL;
    }
    Py_INCREF(markers);
    PyObject *marker[4];
    for (int i = 0; i < 4; i++) {
        marker[i] = PyTuple_GET_ITEM(markers, i);
        if (!PyUnicode_Check(marker[i]) || ready_str(marker[i]) < 0) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "render: markers must be strings");
            }
            Py_DECREF(markers);
            return NULL;
        }
    }
    Writer w = {NULL};
    Columns cs;
    if (columns_read(cols, &cs, 0) == 0) {
        /* pass 1 checks and measures, pass 2 writes: nothing in between runs Python code */
        int failed = 0;
        for (Py_ssize_t n = 0; n < cs.size && !failed; n++) {
            failed = render_column(&w, &cs.cols[n], marker, n == 0, 1) < 0;
        }
        if (!failed && w_start(&w) == 0) {
            for (Py_ssize_t n = 0; n < cs.size; n++) {
                render_column(&w, &cs.cols[n], marker, n == 0, 0);
            }
            result = w_finish(&w);
        }
    }
    Py_XDECREF(w.str);
    columns_clear(&cs);
    Py_DECREF(markers);
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
    {"id_rows", id_rows, METH_O, "id_rows(phases) -> [(name, contents, statuses, notes, ids)] from Phase values"},
    {"index", index_columns, METH_O, "index(cols) -> (by_name, by_content, active, count)"},
    {"setup_ops", setup_ops, METH_VARARGS, "setup_ops(((name, class, fields), ...), phase_items_class)"},
    {"ops", ops, METH_O, "ops(params) -> the op values of tool arguments of the common plain shape"},
    {"scan", scan, METH_VARARGS, "scan(ops, max_content, max_name, max_note, max_payload, texts) -> -1, 0 or 1"},
    {"columns", columns, METH_VARARGS, "columns(phases, proto) -> (cols, by_name, by_content, active, count) from JSON phases"},
    {"parts", parts, METH_VARARGS, "parts(cols, prefixes) -> (tree, remaining, open, dumped, current)"},
    {"dumped", dumped, METH_O, "dumped(cols) -> details.phases of the columns"},
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
    s_id = PyUnicode_InternFromString("id");
    s_ids = PyUnicode_InternFromString("ids");
    g_empty_tuple = PyTuple_New(0);
    s_ops = PyUnicode_InternFromString("ops");
    for (int k = 0; k < F_KEYS; k++) {
        if ((s_field[k] = PyUnicode_InternFromString(g_field_text[k])) == NULL) {
            return NULL;
        }
    }
    if (!s_ops || !s_name || !s_tasks || !s_content || !s_status || !s_notes || !s_contents || !s_statuses || !s_id || !s_ids || !g_empty_tuple) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&speedups_module);
    /* the interface version phasetodo._core.native checks: bump it with any change of a signature */
    if (module != NULL && PyModule_AddIntConstant(module, "API", 6) < 0) {
        Py_CLEAR(module);
    }
    return module;
}
