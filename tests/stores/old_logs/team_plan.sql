BEGIN TRANSACTION;
CREATE TABLE events (session TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL, checkpoint INTEGER NOT NULL DEFAULT 1, request TEXT, hash TEXT, PRIMARY KEY (session, version)) WITHOUT ROWID;
INSERT INTO "events" VALUES('s',1,'{"version":1,"kind":"write","time":1001.0,"agent":"lead","profile":"team","edit":[{"name":"P","tasks":[{"content":"a","status":"pending","id":"t1"},{"content":"b","status":"pending","id":"t2"}],"last_id":2}],"hash":"4ef0f2c6473ae39e4d87b91577f4d440c18613562191e7d1f096c42ccb16c627"}',0,NULL,'4ef0f2c6473ae39e4d87b91577f4d440c18613562191e7d1f096c42ccb16c627');
INSERT INTO "events" VALUES('s',2,'{"version":2,"kind":"write","time":1003.0,"agent":"lead","profile":"team","edit":[{"at":0,"name":"P","tasks":[{"content":"a","status":"in_progress","owner":"lead","id":"t1"},[1,2]],"last_id":2}],"hash":"5ae44df8eefb851fe04b723e7d0c7575fc4c16a82a50d8575d5fa5b8bfd85c46"}',0,NULL,'5ae44df8eefb851fe04b723e7d0c7575fc4c16a82a50d8575d5fa5b8bfd85c46');
CREATE TABLE sessions (id TEXT PRIMARY KEY, owner TEXT);
INSERT INTO "sessions" VALUES('s','lead');
CREATE INDEX events_checkpoints ON events (session, version) WHERE checkpoint = 1;
CREATE INDEX events_requests ON events (session, request) WHERE request IS NOT NULL;
COMMIT;
