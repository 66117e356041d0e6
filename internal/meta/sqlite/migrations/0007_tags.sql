-- Object tags (issue 20): a version's tag set in the x-amz-tagging form
-- ("k1=v1&k2=v2", URL-encoded), NULL when it has none. It moves with the
-- version between objects and object_versions, and an upload carries the
-- tags CreateMultipartUpload was given to its completion.
ALTER TABLE objects ADD COLUMN tags TEXT;
ALTER TABLE object_versions ADD COLUMN tags TEXT;
ALTER TABLE uploads ADD COLUMN tags TEXT;
