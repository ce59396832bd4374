"""The rating sites (mafiaratings.com, Polemica): a tournament's games exported in the shape each
site's own code takes (:mod:`.mafiaratings`, :mod:`.polemica`, checked by :mod:`.schema`), the
tournament's ids on each site (:mod:`.settings`), the upload to mafiaratings (:mod:`.upload`)
and the sites' game records imported as protocols (:mod:`.imports`). docs/records.md cites the
sources, file and commit."""
