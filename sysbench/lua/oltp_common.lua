-- oltp_common.lua: shared code of the bundled OLTP scenarios.
--
-- Every oltp_*.lua script (and select_random_*.lua) does
--
--     local oltp = require("oltp_common")
--
-- which declares the common command-line options, the prepare / prewarm
-- commands and the cleanup() and thread_done() hooks, and returns a module
-- table with the helpers the scripts build their thread_init() and event()
-- from.
--
-- Schema (tables sbtest1 .. sbtest<tables>):
--   id   INTEGER   primary key (generated unless --auto-inc=off)
--   k    INTEGER   NOT NULL DEFAULT 0, random in [1, table_size],
--                  secondary index k_<N> (--create-secondary)
--   c    CHAR(120) ten groups of 11 random digits joined by '-'
--   pad  CHAR(60)  five such groups
--
-- The SQL is kept standard so that it runs unchanged on the embedded
-- SQLite driver, MySQL/MariaDB (and MySQL-protocol engines such as TiDB)
-- and PostgreSQL (and PostgreSQL-protocol engines such as CockroachDB);
-- only CREATE TABLE differs per driver.

local M = {}

-- ---------------------------------------------------------------------
-- Options
-- ---------------------------------------------------------------------

-- Declared here, in one place, for every script that requires us. A
-- script may add its own with M.add_options().
local COMMON_OPTIONS = {
   tables = {"how many sbtestN tables to create and spread the load over", 1},
   table_size = {"rows loaded into each table by prepare", 10000},
   range_size = {"ids covered by each range query (BETWEEN a AND a+size-1)", 100},
   point_selects = {"single-row lookups by primary key in each transaction", 10},
   simple_ranges = {"plain range reads of column c in each transaction", 1},
   sum_ranges = {"range reads that add up column k, per transaction", 1},
   order_ranges = {"range reads sorted by c, per transaction", 1},
   distinct_ranges = {"range reads of distinct c values sorted by c, per transaction", 1},
   index_updates = {"updates of the indexed column k, per transaction", 1},
   non_index_updates = {"updates of the unindexed column c, per transaction", 1},
   delete_inserts = {"rows deleted and inserted back, per transaction", 1},
   range_selects = {"run the range reads at all (off skips every kind)", true},
   auto_inc = {"let the database number new rows (AUTO_INCREMENT, SERIAL " ..
                  "or INTEGER PRIMARY KEY); off: the script picks the ids", true},
   create_table_options = {"text appended to each CREATE TABLE statement", ""},
   skip_trx = {"send no BEGIN/COMMIT: every statement commits on its own", false},
   secondary = {"make id a plain indexed column instead of the primary key", false},
   create_secondary = {"build the index on k after loading each table", true},
   reconnect = {"drop and re-open the connection every N events (0: never)", 0},
   mysql_storage_engine = {"ENGINE of the tables on MySQL/MariaDB", "innodb"},
   pgsql_variant = {"PostgreSQL dialect; 'redshift' also drops the k index " ..
                       "and the delete/insert pairs",
                    nil, sysbench.cmdline.ARG_STRING},
}

-- SB_COMPAT=1.0: `help` shows 1.0.20's descriptions of these options
-- (facts from its regression suite, tests/t/script_oltp_help.t, tag
-- 1.0.20) and hides the two options 1.0 did not have; they still work.
if os.getenv("SB_COMPAT") == "1.0" then
   local desc10 = {
      tables = "Number of tables",
      table_size = "Number of rows per table",
      range_size = "Range size for range SELECT queries",
      point_selects = "Number of point SELECT queries per transaction",
      simple_ranges = "Number of simple range SELECT queries per transaction",
      sum_ranges = "Number of SELECT SUM() queries per transaction",
      order_ranges = "Number of SELECT ORDER BY queries per transaction",
      distinct_ranges = "Number of SELECT DISTINCT queries per transaction",
      index_updates = "Number of UPDATE index queries per transaction",
      non_index_updates = "Number of UPDATE non-index queries per transaction",
      delete_inserts = "Number of DELETE/INSERT combinations per transaction",
      range_selects = "Enable/disable all range SELECT queries",
      auto_inc = "Use AUTO_INCREMENT column as Primary Key (for MySQL), " ..
         "or its alternatives in other DBMS. When disabled, use " ..
         "client-generated IDs",
      skip_trx = "Don't start explicit transactions and execute all " ..
         "queries in the AUTOCOMMIT mode",
      secondary = "Use a secondary index in place of the PRIMARY KEY",
      create_secondary = "Create a secondary index in addition to the " ..
         "PRIMARY KEY",
      mysql_storage_engine = "Storage engine, if MySQL is used",
      pgsql_variant = "Use this PostgreSQL variant when running with the " ..
         "PostgreSQL driver. The only currently supported variant is " ..
         "'redshift'. When enabled, create_secondary is automatically " ..
         "disabled, and delete_inserts is set to 0",
   }
   for name, def in pairs(COMMON_OPTIONS) do
      if desc10[name] ~= nil then
         def[1] = desc10[name]
      else
         def.compat10_hidden = true
      end
   end
end

-- Merges option declarations into sysbench.cmdline.options (never
-- replacing declarations made by somebody else).
function M.add_options(defs)
   sysbench.cmdline.options = sysbench.cmdline.options or {}
   for name, def in pairs(defs) do
      sysbench.cmdline.options[name] = def
   end
end

M.add_options(COMMON_OPTIONS)

-- The effective settings, derived from sysbench.opt by M.init() (options
-- are parsed after the script body ran, so they cannot be read at load
-- time). sysbench.opt itself is never modified.
local cfg

-- What every event reads, kept in locals by M.init() so that an event
-- does not look them up again.
local rand_default, rand_uniform, table_size, table_count, range_size

-- Reads and checks the options once per Lua state; returns the settings.
function M.init()
   if cfg ~= nil then
      return cfg
   end
   local o = sysbench.opt
   cfg = {}
   for name in pairs(COMMON_OPTIONS) do
      cfg[name] = o[name]
   end
   cfg.threads = o.threads or 1

   -- The variant only means something to the PostgreSQL driver.
   if cfg.pgsql_variant == "" or sysbench.sql.driver():name() ~= "pgsql" then
      cfg.pgsql_variant = nil
   end
   if cfg.pgsql_variant ~= nil then
      if cfg.pgsql_variant ~= "redshift" then
         error(string.format("invalid --pgsql-variant '%s': the only " ..
                                "supported variant is 'redshift'",
                             cfg.pgsql_variant), 0)
      end
      -- Redshift has neither secondary indexes nor cheap single-row DML.
      cfg.create_secondary = false
      cfg.delete_inserts = 0
   end

   if cfg.tables < 1 then
      error("--tables must be at least 1", 0)
   end
   if cfg.table_size < 0 then
      error("--table-size must not be negative", 0)
   end
   if cfg.range_size < 1 then
      error("--range-size must be at least 1", 0)
   end
   if cfg.reconnect < 0 then
      error("--reconnect must not be negative", 0)
   end
   rand_default, rand_uniform = sysbench.rand.default, sysbench.rand.uniform
   table_size, table_count, range_size = cfg.table_size, cfg.tables, cfg.range_size
   return cfg
end

-- ---------------------------------------------------------------------
-- Random data
-- ---------------------------------------------------------------------

-- n groups of 11 '#' joined by '-': sysbench.rand.string() turns each '#'
-- into a random digit.
local function digit_groups(n)
   local groups = {}
   for i = 1, n do
      groups[i] = string.rep("#", 11)
   end
   return table.concat(groups, "-")
end

-- 10 groups of 11 digits plus 9 dashes is 119 characters, 5 groups plus
-- 4 dashes is 59: both fit their CHAR(120) / CHAR(60) columns.
M.C_FORMAT = digit_groups(10)
M.PAD_FORMAT = digit_groups(5)

local function rand_c()
   return sysbench.rand.string(M.C_FORMAT)
end
M.rand_c = rand_c

local function rand_pad()
   return sysbench.rand.string(M.PAD_FORMAT)
end
M.rand_pad = rand_pad

-- A row id (or k value) with the distribution chosen by --rand-type.
local function rand_id()
   return rand_default(1, table_size)
end
M.rand_id = rand_id

-- The table for the next transaction, uniformly among all tables.
local function rand_table()
   return rand_uniform(1, table_count)
end
M.rand_table = rand_table

-- ---------------------------------------------------------------------
-- Schema
-- ---------------------------------------------------------------------

-- Whether ids are generated by the database. SQLite can only generate
-- them for a primary key, so --secondary there means client ids.
function M.use_auto_inc(drv)
   local name = drv:name()
   if not cfg.auto_inc then
      return false
   end
   if name == "mysql" or name == "pgsql" then
      return true
   end
   if name == "sqlite" then
      return not cfg.secondary
   end
   return false           -- unknown driver: stay portable
end

-- Whether prepare adds the primary key after the load rather than
-- declaring it in CREATE TABLE. PostgreSQL: yes. COPY into a keyed table
-- inserts and WAL-logs every id into the btree as it goes, about a
-- quarter of the COPY's server CPU (bench/README.md, "the primary key
-- after the load", 2026-11-29); without the key COPY writes the heap
-- only, and the key is built after in one sorted pass (about the CPU it
-- saved; pgbench -i loads in this order too). MySQL/MariaDB: no, InnoDB
-- stores the rows in the primary key's order (the clustered index), so a
-- key added after is a rebuild of the whole table. SQLite: no, the key is
-- the rowid (INTEGER PRIMARY KEY), which a table cannot be given later.
-- Redshift keeps the statement it accepts.
function M.key_after_load(drv)
   return drv:name() == "pgsql" and cfg.pgsql_variant == nil and not cfg.secondary
end

-- The CREATE TABLE statement for table n; without_key: leaving out the
-- primary key, which the caller adds after the load (M.key_after_load).
function M.create_table_sql(drv, n, without_key)
   local name = drv:name()
   local auto = M.use_auto_inc(drv)
   local id_def, key_def, suffix = "INTEGER NOT NULL", "PRIMARY KEY (id)", ""

   if name == "mysql" then
      if auto then
         id_def = "INTEGER NOT NULL AUTO_INCREMENT"
      end
      if cfg.secondary then
         -- InnoDB clusters on a hidden row id; AUTO_INCREMENT needs a key.
         key_def = string.format("KEY xid_%d (id)", n)
      end
      suffix = string.format(" ENGINE = %s", cfg.mysql_storage_engine)
   elseif name == "pgsql" then
      if auto then
         if cfg.pgsql_variant == "redshift" then
            id_def = "INTEGER IDENTITY(1,1)"
         else
            id_def = "SERIAL"
         end
      end
      if cfg.secondary then
         key_def = nil         -- index created separately
      end
   elseif name == "sqlite" then
      -- "INTEGER" + PRIMARY KEY makes id an alias of the rowid, which
      -- SQLite assigns itself when an INSERT leaves it out.
      id_def = "INTEGER"
      if cfg.secondary then
         id_def = "INTEGER NOT NULL"
         key_def = nil
      end
   elseif cfg.secondary then
      key_def = nil
   end

   if without_key then
      key_def = nil
   end
   local cols = {
      "id " .. id_def,
      "k INTEGER DEFAULT '0' NOT NULL",
      "c CHAR(120) DEFAULT '' NOT NULL",
      "pad CHAR(60) DEFAULT '' NOT NULL",
   }
   if key_def ~= nil then
      cols[#cols + 1] = key_def
   end
   local opts = cfg.create_table_options
   if opts ~= nil and opts ~= "" then
      suffix = suffix .. " " .. opts
   end
   return string.format("CREATE TABLE sbtest%d (\n  %s\n)%s", n,
                        table.concat(cols, ",\n  "), suffix)
end

-- A word of the command line as a shell reads it back: as it is when
-- safe, else in double quotes (the hints quote the whole command in
-- single ones), or single quotes when it holds what double quotes expand.
local function shell_word(w)
   if w:match("^[%w_./:=,@%%+-]+$") then
      return w
   end
   if not w:find('[$`"\\!]') then
      return '"' .. w .. '"'
   end
   return "'" .. w:gsub("'", "'\\''") .. "'"
end

-- The command line's driver and connection options (--db-driver,
-- --config-file, --mysql-*, --pgsql-*, --sqlite-*), as given, for a
-- command the user is told to run: pasted, it reaches the same database.
-- Passwords are never repeated (the user types theirs again).
local function connection_words()
   local argv = sysbench.cmdline.argv or {}
   local words = {}
   for i = 1, #argv do
      local a = argv[i]
      if a == "--" then
         break
      end
      local name = a:match("^%-%-([%w_-]+)")
      if name ~= nil and not name:find("password", 1, true) and
         (name == "db-driver" or name == "config-file" or
          name:match("^mysql%-") or name:match("^pgsql%-") or
          name:match("^sqlite%-")) then
         words[#words + 1] = shell_word(a)
      end
   end
   return words
end

-- "sysbench SCRIPT [connection options] ARGS... COMMAND": the command the
-- user should run, for the hints below.
function M.command_hint(command, ...)
   local script = (sysbench.cmdline.script_path or "SCRIPT"):match("([^/]+)$")
   script = script:gsub("%.lua$", "")
   local words = {"sysbench", shell_word(script)}
   for _, w in ipairs(connection_words()) do
      words[#words + 1] = w
   end
   for _, w in ipairs({...}) do
      words[#words + 1] = w
   end
   words[#words + 1] = command
   return table.concat(words, " ")
end

-- CREATE TABLE for table t; a table that is already there (MySQL/MariaDB
-- 1050, PostgreSQL 42P07, SQLite) is said as such, with the cleanup
-- command that drops the tables, rather than as the server's raw error.
local function create_or_explain(con, sql, t)
   local ok, err = pcall(con.query, con, sql)
   if ok then
      return
   end
   if type(err) == "string" and
      (err:find("Table '[^']-" .. t .. "' already exists") or
       err:find('relation "' .. t .. '" already exists', 1, true) or
       err:find("table " .. t .. " already exists", 1, true)) then
      error(string.format("table %s already exists: these tables were prepared before; " ..
                             "drop them with '%s' first, or run on the tables as they are",
                          t, M.command_hint("cleanup", "--tables=" .. cfg.tables)), 0)
   end
   error(err, 0)
end

-- Creates table n (and, with --secondary, its id index, which MySQL
-- declares inside CREATE TABLE); on PostgreSQL without its primary key,
-- which M.finish_table adds after the load.
function M.create_table_only(drv, con, n)
   local table_name = "sbtest" .. n

   print(string.format("Creating table '%s'...", table_name))
   sysbench.progress.phase("create")
   create_or_explain(con, M.create_table_sql(drv, n, M.key_after_load(drv)), table_name)
   if cfg.secondary and drv:name() ~= "mysql" and cfg.pgsql_variant == nil then
      con:query(string.format("CREATE INDEX xid_%d ON %s(id)", n, table_name))
   end
end

-- Loads rows first..last of table n. explicit_ids: the ids are written
-- (first..last) even where the database would number them, so that
-- several threads can load one table and the rows are the same whoever
-- loads them.
function M.load_rows(drv, con, n, first, last, explicit_ids)
   local table_name = "sbtest" .. n
   if last < first then
      return
   end
   if first == 1 and last == cfg.table_size then
      print(string.format("Inserting %d records into '%s'", cfg.table_size, table_name))
   else
      print(string.format("Inserting records %d to %d into '%s'", first, last,
                          table_name))
   end
   sysbench.progress.phase("load")
   local ids = explicit_ids or not M.use_auto_inc(drv)
   if ids then
      con:bulk_insert_init(string.format(
         "INSERT INTO %s (id, k, c, pad) VALUES", table_name))
   else
      con:bulk_insert_init(string.format(
         "INSERT INTO %s (k, c, pad) VALUES", table_name))
   end
   if M.rand_id == rand_id and M.rand_c == rand_c and M.rand_pad == rand_pad and
      con.bulk_insert_rows ~= nil then
      -- The rows made in C, drawing what the loop below draws.
      local cols = {{"default", 1, table_size}, {"string", M.C_FORMAT},
                    {"string", M.PAD_FORMAT}}
      if ids then
         table.insert(cols, 1, "id")
      end
      con:bulk_insert_rows(first, last, cols)
   else
      -- A script that replaced a row's generator.
      for id = first, last do
         local k = M.rand_id()
         if ids then
            con:bulk_insert_next(string.format("(%d, %d, '%s', '%s')",
                                               id, k, M.rand_c(), M.rand_pad()))
         else
            con:bulk_insert_next(string.format("(%d, '%s', '%s')",
                                               k, M.rand_c(), M.rand_pad()))
         end
      end
   end
   con:bulk_insert_done()
end

-- What follows the load of table n, once all its rows are in: on
-- PostgreSQL the primary key (M.key_after_load; unnamed, as in CREATE
-- TABLE, so the server gives it the same name, sbtestN_pkey) and the id
-- sequence moved past the ids written explicitly; then the secondary
-- index.
function M.finish_table(drv, con, n, explicit_ids)
   local table_name = "sbtest" .. n
   if M.key_after_load(drv) then
      sysbench.progress.phase("key")
      con:query(string.format("ALTER TABLE %s ADD PRIMARY KEY (id)", table_name))
   end
   if explicit_ids and cfg.table_size > 0 and drv:name() == "pgsql" and
      M.use_auto_inc(drv) then
      con:query(string.format(
         "SELECT setval(pg_get_serial_sequence('%s', 'id'), %d)",
         table_name, cfg.table_size))
   end
   if cfg.create_secondary then
      print(string.format("Creating a secondary index on '%s'...",
                          table_name))
      sysbench.progress.phase("index")
      con:query(string.format("CREATE INDEX k_%d ON %s(k)", n, table_name))
   end
end

-- Creates table n, loads cfg.table_size rows and builds the indexes.
function M.create_table(drv, con, n)
   M.create_table_only(drv, con, n)
   M.load_rows(drv, con, n, 1, cfg.table_size, false)
   M.finish_table(drv, con, n, false)
end

-- Calls fn(n) for each table this thread owns in a parallel command:
-- connection g of all instances' (sysbench.global_tid, from 0) handles
-- tables g+1, g+1+G, g+1+2G, ... with G = threads x instances, so
-- instances started with --instance=I/N split the tables between them.
local function for_my_tables(fn)
   local threads = cfg.threads
   if threads < 1 then
      threads = 1
   end
   local all = threads * (sysbench.instances or 1)
   local g = sysbench.global_tid or sysbench.tid
   for n = g % all + 1, cfg.tables, all do
      fn(n)
   end
end

-- The plan of a parallel prepare, the same in every thread: this
-- instance's tables (every --instances-th, from its own) in one sequence
-- of rows, cut into --threads contiguous ranges, so that one large table
-- keeps every thread busy and many small ones are not split. Returns
-- this thread's parts, in order, as {n = table, first = id, last = id,
-- creates = bool}, and the number of parts of each table.
local function prepare_plan()
   local tables = {}
   local inst, count = sysbench.instance or 0, sysbench.instances or 1
   for n = inst + 1, cfg.tables, count do
      tables[#tables + 1] = n
   end
   local threads = math.max(cfg.threads, 1)
   -- An empty table still has one unit: some thread must create it.
   local unit = math.max(cfg.table_size, 1)
   local total = #tables * unit
   local function range(t)
      return math.floor(total * t / threads), math.floor(total * (t + 1) / threads)
   end
   local nparts = {}
   for t = 0, threads - 1 do
      local from, to = range(t)
      if to > from then
         for i = math.floor(from / unit), math.floor((to - 1) / unit) do
            nparts[tables[i + 1]] = (nparts[tables[i + 1]] or 0) + 1
         end
      end
   end
   local mine = {}
   local from, to = range(sysbench.tid)
   if to > from then
      for i = math.floor(from / unit), math.floor((to - 1) / unit) do
         local lo = math.max(from, i * unit) - i * unit
         local hi = math.min(to, (i + 1) * unit) - i * unit
         mine[#mine + 1] = {
            n = tables[i + 1],
            first = lo + 1,
            last = math.min(hi, cfg.table_size),
            creates = lo == 0,
         }
      end
   end
   return mine, nparts
end

-- "prepare" with SB_COMPAT=1.0 and for Redshift (whose IDENTITY column
-- takes no ids of ours): a thread per table, as sysbench 1.0 does.
local function prepare_by_table()
   local mine = 0
   for_my_tables(function() mine = mine + 1 end)
   sysbench.progress.expect(mine * cfg.table_size)
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   for_my_tables(function(n) M.create_table(drv, con, n) end)
   con:disconnect()
end

-- "prepare": create and load the tables, in parallel over --threads and
-- over row ranges within a table (prepare_plan). Each table is created
-- by the thread that loads its first rows, before any thread loads; the
-- thread that loads its last part finishes it (indexes). Every table is
-- an item of sysbench.progress, so a prepare that fails or is
-- interrupted names the tables that are not complete.
function M.cmd_prepare()
   M.init()
   -- oltp_insert with --auto-inc=off inserts ids of its own: its tables
   -- start empty, as in 1.0.20. A flag rather than a wrapped command, so
   -- that a mix of oltp_* scripts (sysbench.mix) sees one prepare, defined
   -- here, and runs it once.
   if M.prepare_empty_without_auto_inc and not cfg.auto_inc then
      cfg.table_size = 0
   end
   if os.getenv("SB_COMPAT") == "1.0" or cfg.pgsql_variant ~= nil then
      return prepare_by_table()
   end
   local parts, nparts = prepare_plan()
   local rows = 0
   for _, p in ipairs(parts) do
      rows = rows + math.max(p.last - p.first + 1, 0)
   end
   sysbench.progress.expect(rows)
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   local item = {}
   for _, p in ipairs(parts) do
      item[p.n] = sysbench.progress.item("sbtest" .. p.n, nparts[p.n], "tables")
   end
   for _, p in ipairs(parts) do
      if p.creates then
         M.create_table_only(drv, con, p.n)
         sysbench.progress.item_state(item[p.n], "created")
      end
   end
   for _, p in ipairs(parts) do
      -- Another thread makes the table, and may have failed.
      if not sysbench.progress.wait(item[p.n], "created") then
         con:disconnect()
         return
      end
      sysbench.progress.item_state(item[p.n], "loading")
      M.load_rows(drv, con, p.n, p.first, p.last, true)
      if sysbench.progress.part_done(item[p.n]) == nparts[p.n] then
         M.finish_table(drv, con, p.n, true)
         sysbench.progress.item_state(item[p.n], "complete")
      end
   end
   con:disconnect()
end

-- "prewarm": read every table and its k index so they are in the
-- server's caches before a run.
function M.cmd_prewarm()
   M.init()
   local drv = sysbench.sql.driver()
   -- SB_COMPAT=1.0: 1.0.20 refuses prewarm on any driver but MySQL (its
   -- regression suite expects the error); ours reads the tables anywhere.
   if os.getenv("SB_COMPAT") == "1.0" and drv:name() ~= "mysql" then
      error("prewarm is currently MySQL only")
   end
   local con = drv:connect()
   for_my_tables(function(n)
      print(string.format("Prewarming table sbtest%d", n))
      -- Reading c and pad forces a pass over the whole rows (the
      -- clustered index in InnoDB) rather than a smaller index.
      con:query_row(string.format(
         "SELECT AVG(id), SUM(LENGTH(c)), SUM(LENGTH(pad)) FROM sbtest%d", n))
      -- A covering query on k, answered from the k index when it exists.
      con:query_row(string.format(
         "SELECT COUNT(k) FROM sbtest%d WHERE k > 0", n))
   end)
   con:disconnect()
end

-- "cleanup": drop all tables (runs once, in the main state).
function M.cmd_cleanup()
   M.init()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   for n = 1, cfg.tables do
      print(string.format("Dropping table 'sbtest%d'...", n))
      con:query(string.format("DROP TABLE IF EXISTS sbtest%d", n))
   end
   con:disconnect()
end

sysbench.cmdline.commands = sysbench.cmdline.commands or {}
sysbench.cmdline.commands.prepare =
   {M.cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND}
sysbench.cmdline.commands.prewarm =
   {M.cmd_prewarm, sysbench.cmdline.PARALLEL_COMMAND}

-- Global hook: the cleanup command.
function cleanup()
   M.cmd_cleanup()
end

-- Global hook: every script's thread_done (a script may define its own).
function thread_done()
   M.thread_done()
end

-- ---------------------------------------------------------------------
-- Prepared statements
-- ---------------------------------------------------------------------

-- Statement kinds: SQL with %d for the table number, then the parameter
-- types. A type is a sysbench.sql.type name, or {name, max_length}.
M.STATEMENTS = {
   point_selects = {"SELECT c FROM sbtest%d WHERE id=?", "INT"},
   simple_ranges = {"SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ?",
                    "INT", "INT"},
   sum_ranges = {"SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN ? AND ?",
                 "INT", "INT"},
   order_ranges = {"SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ? " ..
                      "ORDER BY c", "INT", "INT"},
   distinct_ranges = {"SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN ? " ..
                         "AND ? ORDER BY c", "INT", "INT"},
   index_updates = {"UPDATE sbtest%d SET k=k+1 WHERE id=?", "INT"},
   non_index_updates = {"UPDATE sbtest%d SET c=? WHERE id=?",
                        {"CHAR", 120}, "INT"},
   deletes = {"DELETE FROM sbtest%d WHERE id=?", "INT"},
   inserts = {"INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)",
              "INT", "INT", {"CHAR", 120}, {"CHAR", 60}},
   -- oltp_insert with generated ids
   auto_inserts = {"INSERT INTO sbtest%d (k, c, pad) VALUES (?, ?, ?)",
                   "INT", {"CHAR", 120}, {"CHAR", 60}},
}

-- Per-thread state (each worker thread has its own Lua state).
M.drv = nil
M.con = nil
M.stmt = {}     -- stmt[table][kind] = prepared statement
M.param = {}    -- param[table][kind] = {bind params in order}
local prepared_kinds = {}   -- kinds prepared by M.prepare_statements()
local extra_statements = {} -- statements from M.prepare_custom()
local events_since_connect = 0

-- Prepares one statement and binds its parameters.
local function prepare_one(sql, types)
   local stmt = M.con:prepare(sql)
   local params = {}
   for i, t in ipairs(types) do
      if type(t) == "table" then
         params[i] = stmt:bind_create(sysbench.sql.type[t[1]], t[2])
      else
         params[i] = stmt:bind_create(sysbench.sql.type[t])
      end
   end
   if #params > 0 then
      stmt:bind_param(unpack(params))
   end
   return stmt, params
end

-- Prepares the listed statement kinds for every table.
-- The error of a statement on a table that does not exist (MySQL/MariaDB
-- 1146, PostgreSQL 42P01, SQLite), with what to do about it: the tables
-- are made by prepare, with the same --tables and --table-size. Other
-- errors are returned unchanged.
local function missing_table_hint(err)
   if type(err) ~= "string" then
      return err
   end
   local t = err:match("Table '[^']-(sbtest%d+)' doesn't exist") or
      err:match('relation "(sbtest%d+)" does not exist') or
      err:match("no such table: (sbtest%d+)")
   if t == nil then
      return err
   end
   return string.format("table %s does not exist: run '%s' first (prepare with the same " ..
                           "--tables and --table-size, and the same database options, " ..
                           "as the run)", t,
                        M.command_hint("prepare", "--tables=" .. cfg.tables,
                                       "--table-size=" .. cfg.table_size))
end

function M.prepare_statements(kinds)
   prepared_kinds = kinds
   for n = 1, cfg.tables do
      M.stmt[n] = M.stmt[n] or {}
      M.param[n] = M.param[n] or {}
      for _, kind in ipairs(kinds) do
         local def = M.STATEMENTS[kind]
         if def == nil then
            error("unknown statement kind '" .. tostring(kind) .. "'", 2)
         end
         local ok, stmt, param = pcall(prepare_one, string.format(def[1], n),
                                       {select(2, unpack(def))})
         if not ok then
            -- Level 0: the message is complete, the line is not the fault.
            error(missing_table_hint(stmt), 0)
         end
         M.stmt[n][kind], M.param[n][kind] = stmt, param
      end
   end
end

-- Prepares a script's own statement (sql with ?, parameter types as in
-- M.STATEMENTS); it is closed and re-prepared along with the others.
-- Returns a handle {stmt = ..., param = {...}}.
function M.prepare_custom(sql, types)
   local h = {sql = sql, types = types}
   h.stmt, h.param = prepare_one(sql, types)
   extra_statements[#extra_statements + 1] = h
   return h
end

-- M.prepare_custom() for every table: sql_format has %d for the table
-- number. Returns the handles indexed by table number.
function M.prepare_custom_tables(sql_format, types)
   local handles = {}
   for n = 1, cfg.tables do
      handles[n] = M.prepare_custom(string.format(sql_format, n), types)
   end
   return handles
end

function M.close_statements()
   for n, kinds in pairs(M.stmt) do
      for kind, stmt in pairs(kinds) do
         stmt:close()
      end
      M.stmt[n], M.param[n] = {}, {}
   end
   for _, h in ipairs(extra_statements) do
      h.stmt:close()
      h.stmt = nil
   end
end

local function reprepare_statements()
   M.prepare_statements(prepared_kinds)
   for _, h in ipairs(extra_statements) do
      h.stmt, h.param = prepare_one(h.sql, h.types)
   end
end

-- ---------------------------------------------------------------------
-- Thread life cycle
-- ---------------------------------------------------------------------

-- Connects this worker and prepares the listed statement kinds.
-- Scripts call it from thread_init().
function M.thread_init(kinds)
   M.init()
   if cfg.table_size < 1 then
      error("--table-size must be at least 1 for this command", 0)
   end
   M.drv = sysbench.sql.driver()
   M.con = M.drv:connect()
   M.prepare_statements(kinds or {})
   events_since_connect = 0
end

function M.thread_done()
   if M.con ~= nil then
      M.close_statements()
      M.con:disconnect()
      M.con = nil
   end
end

-- Starts a transaction (unless --skip-trx) on a randomly chosen table and
-- returns that table's number.
function M.begin()
   if not cfg.skip_trx then
      M.con:query("BEGIN")
   end
   return rand_table()
end

-- Ends the transaction started by M.begin(), then reconnects if
-- --reconnect says it is time.
function M.commit()
   if not cfg.skip_trx then
      M.con:query("COMMIT")
   end
   M.event_done()
end

-- Drops and re-opens the connection and prepares every statement again:
-- a fresh connection rather than con:reconnect(), which crashes sysbench
-- 1.0.20 itself. A connection killed inside a prepare is re-opened by the
-- SQL layer, which raises a restart error; the statements must be whole
-- before the next event uses them, so the sequence is tried again here
-- (at most 10 times; any other error ends the run as before).
local function reopen_connection()
   local function reopen()
      M.close_statements()
      M.con:disconnect()
      M.con = M.drv:connect()
      reprepare_statements()
   end
   for attempt = 1, 10 do
      local ok, e = pcall(reopen)
      if ok then return end
      if type(e) ~= "table" or e.errcode ~= sysbench.error.RESTART_EVENT or attempt == 10 then
         error(e, 0)
      end
   end
end

-- Bookkeeping at the end of every event: --reconnect=N.
function M.event_done()
   if cfg.reconnect > 0 then
      events_since_connect = events_since_connect + 1
      if events_since_connect >= cfg.reconnect then
         events_since_connect = 0
         reopen_connection()
      end
   end
end

-- An ignorable error (deadlock, lock wait timeout, serialization failure,
-- a unique violation between concurrent delete/insert pairs on
-- PostgreSQL, lost connection) aborts the event, which is then run again.
-- The driver layer has already rolled back the transaction the error left
-- open, so nothing is needed here.

-- ---------------------------------------------------------------------
-- Query groups (each takes the table number)
-- ---------------------------------------------------------------------

function M.point_selects(n, count)
   local stmt, p = M.stmt[n].point_selects, M.param[n].point_selects
   for _ = 1, count or cfg.point_selects do
      p[1]:set(rand_id())
      stmt:execute()
   end
end

-- One kind of range query, count times, each over range_size ids.
local function ranges(n, kind, count)
   local stmt, p = M.stmt[n][kind], M.param[n][kind]
   for _ = 1, count do
      local first = rand_id()
      p[1]:set(first)
      p[2]:set(first + range_size - 1)
      stmt:execute()
   end
end

function M.simple_ranges(n)   ranges(n, "simple_ranges", cfg.simple_ranges) end
function M.sum_ranges(n)      ranges(n, "sum_ranges", cfg.sum_ranges) end
function M.order_ranges(n)    ranges(n, "order_ranges", cfg.order_ranges) end
function M.distinct_ranges(n) ranges(n, "distinct_ranges", cfg.distinct_ranges) end

-- All four range query groups, when --range-selects is on.
function M.range_selects(n)
   if cfg.range_selects then
      M.simple_ranges(n)
      M.sum_ranges(n)
      M.order_ranges(n)
      M.distinct_ranges(n)
   end
end

function M.index_updates(n, count)
   local stmt, p = M.stmt[n].index_updates, M.param[n].index_updates
   for _ = 1, count or cfg.index_updates do
      p[1]:set(rand_id())
      stmt:execute()
   end
end

function M.non_index_updates(n, count)
   local stmt, p = M.stmt[n].non_index_updates, M.param[n].non_index_updates
   for _ = 1, count or cfg.non_index_updates do
      p[1]:set_rand_str(M.C_FORMAT)
      p[2]:set(rand_id())
      stmt:execute()
   end
end

function M.deletes(n, count)
   local stmt, p = M.stmt[n].deletes, M.param[n].deletes
   for _ = 1, count or 1 do
      p[1]:set(rand_id())
      stmt:execute()
   end
end

-- Deletes a random row and inserts it back with new contents.
function M.delete_inserts(n, count)
   local del, dp = M.stmt[n].deletes, M.param[n].deletes
   local ins, ip = M.stmt[n].inserts, M.param[n].inserts
   for _ = 1, count or cfg.delete_inserts do
      local id = rand_id()
      dp[1]:set(id)
      del:execute()
      ip[1]:set(id)
      ip[2]:set(rand_id())
      ip[3]:set_rand_str(M.C_FORMAT)
      ip[4]:set_rand_str(M.PAD_FORMAT)
      ins:execute()
   end
end

-- Statement kinds each group needs, for M.thread_init().
M.READ_KINDS = {"point_selects", "simple_ranges", "sum_ranges",
                "order_ranges", "distinct_ranges"}
M.WRITE_KINDS = {"index_updates", "non_index_updates", "deletes", "inserts"}

-- Concatenates lists of kinds.
function M.kinds(...)
   local all = {}
   for _, list in ipairs({...}) do
      for _, kind in ipairs(list) do
         all[#all + 1] = kind
      end
   end
   return all
end

return M
-- SPDX-License-Identifier: GPL-2.0-or-later
