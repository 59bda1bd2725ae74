package knowledge

import (
	"context"
	"errors"
	"fmt"

	"github.com/agno-go/agno/knowledge/contents"
)

// GetContent lists this knowledge base's contents (agno's get_content)
// and the total that match.
func (k *Knowledge) GetContent(ctx context.Context, opts contents.ListOptions) ([]Content, int, error) {
	if k.cfg.ContentsDB == nil {
		return nil, 0, ErrNoContentsDB
	}
	opts.LinkedTo = k.cfg.Name
	rows, total, err := k.cfg.ContentsDB.List(ctx, opts)
	if err != nil {
		return nil, 0, fmt.Errorf("knowledge: listing contents: %w", err)
	}
	out := make([]Content, len(rows))
	for i, r := range rows {
		out[i] = contentFromRow(r)
	}
	return out, total, nil
}

// GetContentByID returns one content; a missing one is an error wrapping
// contents.ErrNotFound.
func (k *Knowledge) GetContentByID(ctx context.Context, id string) (Content, error) {
	if k.cfg.ContentsDB == nil {
		return Content{}, ErrNoContentsDB
	}
	r, err := k.cfg.ContentsDB.Get(ctx, id)
	if err != nil {
		return Content{}, err
	}
	return contentFromRow(r), nil
}

// GetContentStatus returns a content's status and status message.
func (k *Knowledge) GetContentStatus(ctx context.Context, id string) (contents.Status, string, error) {
	c, err := k.GetContentByID(ctx, id)
	if err != nil {
		return "", "", err
	}
	return c.Status, c.StatusMessage, nil
}

// PatchContent is agno's patch_content: it merges the set fields of c
// (name, description, metadata, status, status message, external id) into
// the stored content, pushes the metadata to the vector store and returns
// the updated row.
func (k *Knowledge) PatchContent(ctx context.Context, c Content) (contents.Row, error) {
	if k.cfg.ContentsDB == nil {
		return contents.Row{}, ErrNoContentsDB
	}
	c.Metadata = StripAgnoMetadata(c.Metadata)
	return k.patch(ctx, &c)
}

// RemoveContentByID deletes a content's chunks from the vector store and
// its row from the contents DB.
func (k *Knowledge) RemoveContentByID(ctx context.Context, id string) error {
	var errs []error
	if k.cfg.VectorDB != nil {
		if _, err := k.cfg.VectorDB.DeleteByContentID(ctx, id); err != nil {
			errs = append(errs, fmt.Errorf("knowledge: deleting the chunks of %s: %w", id, err))
		}
	}
	if k.cfg.ContentsDB != nil {
		if err := k.cfg.ContentsDB.Delete(ctx, id); err != nil {
			errs = append(errs, fmt.Errorf("knowledge: deleting content %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// RemoveAllContent removes every content of this knowledge base.
func (k *Knowledge) RemoveAllContent(ctx context.Context) error {
	all, _, err := k.GetContent(ctx, contents.ListOptions{})
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range all {
		errs = append(errs, k.RemoveContentByID(ctx, c.ID))
	}
	return errors.Join(errs...)
}

// RemoveVectorByID deletes one vector record by its record id.
func (k *Knowledge) RemoveVectorByID(ctx context.Context, id string) (bool, error) {
	if k.cfg.VectorDB == nil {
		return false, nil
	}
	return k.cfg.VectorDB.DeleteByID(ctx, id)
}

// RemoveVectorsByName deletes the vector records of documents named name.
func (k *Knowledge) RemoveVectorsByName(ctx context.Context, name string) (bool, error) {
	if k.cfg.VectorDB == nil {
		return false, nil
	}
	return k.cfg.VectorDB.DeleteByName(ctx, name)
}

// RemoveVectorsByMetadata deletes the vector records whose metadata
// contains metadata.
func (k *Knowledge) RemoveVectorsByMetadata(ctx context.Context, metadata map[string]any) (bool, error) {
	if k.cfg.VectorDB == nil {
		return false, nil
	}
	return k.cfg.VectorDB.DeleteByMetadata(ctx, metadata)
}
