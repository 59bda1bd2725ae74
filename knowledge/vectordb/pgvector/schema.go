package pgvector

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/storage/migrate"
	"github.com/agno-go/agno/storage/migrate/pgxmigrate"
)

// versionsTable records, per knowledge table of a schema, which store
// made it (kind) and its schema version. The Postgres contents store
// shares it.
const versionsTable = "agno_knowledge_schema_versions"

// storeKind is this store's entry in versionsTable.kind.
const storeKind = "vectors"

// lockClass is the first key of the advisory lock migrations hold; the
// second is hashtext of the table's qualified name.
const lockClass = 0x61676b6e // "agkn"

// migration brings the table to a version. Versions start at 1 and only
// grow; a released migration is never edited, a change is a new version.
// In statements {t} stands for the quoted qualified table, {idx} for the
// index-name prefix, {embedding} for the embedding column's type and
// {lang} for the quoted text search configuration. Statements marked
// vectorIndex run only when the column is a pgvector vector and
// Config.Index is hnsw.
type migration struct {
	version int64
	stmts   []stmt
}

type stmt struct {
	sql         string
	vectorIndex bool
}

var migrations = []migration{
	{version: 1, stmts: []stmt{
		{sql: `CREATE TABLE {t} (
			seq          BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
			id           TEXT PRIMARY KEY,
			name         TEXT NOT NULL DEFAULT '',
			content      TEXT NOT NULL,
			meta_data    JSONB NOT NULL DEFAULT '{}',
			content_id   TEXT NOT NULL DEFAULT '',
			content_hash TEXT NOT NULL DEFAULT '',
			usage        JSONB,
			embedding    {embedding},
			fts          tsvector GENERATED ALWAYS AS (to_tsvector({lang}::regconfig, content)) STORED,
			created_at   BIGINT NOT NULL,
			updated_at   BIGINT NOT NULL
		)`},
		{sql: `CREATE INDEX "{idx}_name_idx" ON {t} (name)`},
		{sql: `CREATE INDEX "{idx}_content_id_idx" ON {t} (content_id)`},
		{sql: `CREATE INDEX "{idx}_content_hash_idx" ON {t} (content_hash)`},
		{sql: `CREATE INDEX "{idx}_fts_idx" ON {t} USING gin (fts)`},
		{sql: `CREATE INDEX "{idx}_meta_idx" ON {t} USING gin (meta_data jsonb_path_ops)`},
		{sql: `CREATE INDEX "{idx}_embedding_idx" ON {t} USING hnsw (embedding {opclass})`, vectorIndex: true},
	}},
}

var errForeign = errors.New("pgvector: the schema holds a table of that name that this store did not create; choose another Config.Table or Config.Schema")

// maxHNSWDims is pgvector's limit for an HNSW index on vector.
const maxHNSWDims = 2000

// migrate brings the table to the latest version under an advisory lock:
// creating it when create is set, else only when it exists. It then reads
// the embedding column's type.
func (s *Store) migrate(ctx context.Context, create bool) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := pgxmigrate.Lock(ctx, tx, lockClass, s.tbl); err != nil {
			return fmt.Errorf("pgvector: lock for migrations: %w", err)
		}
		embedding, opclass := "real[]", ""
		useVector := s.ext != "" && s.cfg.Embedder != nil
		if useVector {
			embedding = s.ext + ".vector(" + strconv.Itoa(s.cfg.Embedder.Dimensions()) + ")"
			opclass = s.ext + "." + map[vectordb.Distance]string{
				vectordb.Cosine: "vector_cosine_ops", vectordb.L2: "vector_l2_ops", vectordb.MaxInnerProduct: "vector_ip_ops",
			}[s.cfg.Distance]
		}
		index := useVector && s.cfg.Index == IndexHNSW && s.cfg.Embedder.Dimensions() <= maxHNSWDims
		ms := make([]migrate.Migration, len(migrations))
		for i, m := range migrations {
			ms[i] = migrate.Migration{Table: s.cfg.Table, Version: m.version}
			for _, st := range m.stmts {
				if !st.vectorIndex || index {
					ms[i].Stmts = append(ms[i].Stmts, st.sql)
				}
			}
		}
		plan := s.plan()
		plan.SkipNew = !create
		plan.Expand = strings.NewReplacer("{t}", s.tbl, "{idx}", s.cfg.Table, "{embedding}", embedding,
			"{lang}", "'"+s.cfg.Language+"'", "{opclass}", opclass).Replace
		applied, err := migrate.Run(ctx, pgxmigrate.Tx(tx), plan, ms)
		if err != nil {
			return err
		}
		if applied > 0 {
			s.log.Info("pgvector: schema migrated", "table", s.tbl, "migrations", applied, "vector", useVector)
		}
		var udt string
		err = tx.QueryRow(ctx, `SELECT udt_name FROM information_schema.columns
			WHERE table_schema = $1 AND table_name = $2 AND column_name = 'embedding'`, s.schema, s.cfg.Table).Scan(&udt)
		if errors.Is(err, pgx.ErrNoRows) && !create {
			// Not made yet: Create will make it.
			s.setColumn(false, false)
			return nil
		}
		if err != nil {
			return fmt.Errorf("pgvector: read the embedding column of %s: %w", s.tbl, err)
		}
		s.setColumn(true, udt == "vector")
		return nil
	})
}

// plan is where the store records its table's version.
func (s *Store) plan() migrate.Plan {
	return migrate.Plan{
		Name:     "pgvector: schema " + s.schema,
		Versions: s.versions,
		Postgres: true,
		Kind:     storeKind,
		Foreign:  errForeign,
		Exists:   pgxmigrate.Exists(s.schema),
	}
}

// setColumn records the table's state: whether it exists, and whether
// its embeddings are pgvector vectors.
func (s *Store) setColumn(exists, vector bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !exists {
		// Create will make a vector column when it can.
		s.vector, s.realArray = s.ext != "", false
		return
	}
	s.vector, s.realArray = vector && s.ext != "", !vector
}

// Create implements vectordb.DB: it makes the table, or brings it to the
// current schema version.
func (s *Store) Create(ctx context.Context) error { return s.migrate(ctx, true) }

// Exists implements vectordb.DB.
func (s *Store) Exists(ctx context.Context) (bool, error) {
	var ok bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, s.tbl).Scan(&ok); err != nil {
		return false, fmt.Errorf("pgvector: exists: %w", err)
	}
	return ok, nil
}

// Drop implements vectordb.DB: it drops the table and forgets its schema
// version.
func (s *Store) Drop(ctx context.Context) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := pgxmigrate.Lock(ctx, tx, lockClass, s.tbl); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+s.tbl); err != nil {
			return err
		}
		// With no migrations Run only makes the versions table if missing.
		if _, err := migrate.Run(ctx, pgxmigrate.Tx(tx), s.plan(), nil); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM `+s.versions+` WHERE table_name = $1`, s.cfg.Table)
		return err
	})
	if err != nil {
		return fmt.Errorf("pgvector: drop %s: %w", s.tbl, err)
	}
	s.setColumn(false, false)
	return nil
}
