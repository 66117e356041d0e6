-- Object ACLs (issue 21): a version's access control list as JSON of
-- []acl.Grant, NULL for the private ACL (the owner's full control). It
-- moves with the version between objects and object_versions, as tags do;
-- an upload carries the ACL CreateMultipartUpload was given to its
-- completion.
ALTER TABLE objects ADD COLUMN acl TEXT;
ALTER TABLE object_versions ADD COLUMN acl TEXT;
ALTER TABLE uploads ADD COLUMN acl TEXT;
