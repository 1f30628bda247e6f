// Browser storage for the autosave (IndexedDB: a large quota and atomic multi-key
// writes) and the coordination between tabs (Web Locks + BroadcastChannel).
// The decisions live in Python (py/bendscope/bend/persist/autosave.py); this file only does I/O.
(function () {
  "use strict";
  var DB_NAME = "bendscope";
  var STORE = "kv";
  var dbPromise = null;

  function open() {
    if (dbPromise) return dbPromise;
    dbPromise = new Promise(function (resolve, reject) {
      if (!window.indexedDB) { reject(new Error("IndexedDB is not available")); return; }
      var req = window.indexedDB.open(DB_NAME, 1);
      req.onupgradeneeded = function () { req.result.createObjectStore(STORE); };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { reject(req.error); };
      req.onblocked = function () { reject(new Error("IndexedDB is blocked by another tab")); };
    });
    return dbPromise;
  }

  function tx(mode, work) {
    return open().then(function (db) {
      return new Promise(function (resolve, reject) {
        var t = db.transaction(STORE, mode);
        var result;
        t.oncomplete = function () { resolve(result); };
        t.onabort = function () { reject(t.error || new Error("the write was aborted")); };
        t.onerror = function () { /* onabort follows with the error */ };
        work(t.objectStore(STORE), function (value) { result = value; });
      });
    });
  }

  // A test can make writes fail as a full disk would (see e2e/test_storage.py).
  var failure = null;

  window.bendscopeStorage = {
    open: function () { return open().then(function () { return true; }); },
    get: function (key) {
      return tx("readonly", function (store, done) {
        var r = store.get(key);
        r.onsuccess = function () { done(r.result === undefined ? null : r.result); };
      });
    },
    // all items or none: one transaction
    putMany: function (items) {
      if (failure) return Promise.reject(failure);
      return tx("readwrite", function (store) {
        Object.keys(items).forEach(function (key) { store.put(items[key], key); });
      });
    },
    del: function (key) {
      return tx("readwrite", function (store) { store.delete(key); });
    },
    keys: function () {
      return tx("readonly", function (store, done) {
        var r = store.getAllKeys();
        r.onsuccess = function () { done(r.result.map(String)); };
      });
    },
    failWrites: function (name, message) {
      failure = name ? new DOMException(message || "The quota has been exceeded.", name) : null;
    },
  };

  // ---- tabs: the tab holding the lock owns the save
  var LOCK = "bendscope:autosave";
  var release = null;
  var channel = window.BroadcastChannel ? new BroadcastChannel("bendscope") : null;
  var tabId = Math.random().toString(36).slice(2);

  window.bendscopeTabs = {
    supported: !!(navigator.locks && channel),
    id: tabId,
    // resolves true when this tab holds the lock; with wait=false, false at once if taken
    acquire: function (wait) {
      if (!navigator.locks) return Promise.resolve(true);
      return new Promise(function (resolve) {
        navigator.locks.request(LOCK, wait ? {} : { ifAvailable: true }, function (lock) {
          if (!lock) { resolve(false); return undefined; }
          resolve(true);
          return new Promise(function (done) { release = done; });
        }).catch(function () { resolve(false); });
      });
    },
    release: function () {
      if (release) { var r = release; release = null; r(); }
    },
    post: function (message) {
      if (channel) channel.postMessage(Object.assign({ from: tabId }, message));
    },
    listen: function (callback) {
      if (channel) channel.onmessage = function (event) {
        if (event.data && event.data.from !== tabId) callback(event.data);
      };
    },
  };
})();
