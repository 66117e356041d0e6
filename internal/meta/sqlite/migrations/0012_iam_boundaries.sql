-- Permissions boundaries: the managed policy that bounds what a user's or
-- role's identity policies can allow (NULL: none). A policy in use as a
-- boundary cannot be deleted (the store refuses it: DeleteConflict, as
-- IAM).
ALTER TABLE iam_entities ADD COLUMN boundary_id INTEGER REFERENCES iam_policies(id);
