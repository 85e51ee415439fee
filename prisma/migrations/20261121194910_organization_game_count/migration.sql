-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "game_count" INTEGER NOT NULL DEFAULT 0;


-- Keep organizations.game_count equal to the number of the organization's games, so that a
-- list's meta.total is one primary-key read instead of a COUNT(*) that grows with the
-- organization (README "Performance"). Statement-level triggers with transition tables do one
-- UPDATE per organization and statement, so a set-based insert of a million rows stays cheap.
CREATE FUNCTION "count_organization_games"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "organizations" o SET "game_count" = o."game_count" + d.delta
    FROM (SELECT "organization_id", count(*) AS delta FROM new_games GROUP BY 1) d
    WHERE o."id" = d."organization_id";
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE "organizations" o SET "game_count" = o."game_count" - d.delta
    FROM (SELECT "organization_id", count(*) AS delta FROM old_games GROUP BY 1) d
    WHERE o."id" = d."organization_id";
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE "organizations" o SET "game_count" = o."game_count" + d.delta
    FROM (
      SELECT "organization_id", sum(delta) AS delta
      FROM (SELECT "organization_id", 1 AS delta FROM new_games
            UNION ALL SELECT "organization_id", -1 FROM old_games) moved
      GROUP BY 1 HAVING sum(delta) <> 0
    ) d
    WHERE o."id" = d."organization_id";
  ELSE -- TRUNCATE
    UPDATE "organizations" SET "game_count" = 0 WHERE "game_count" <> 0;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "games_count_insert" AFTER INSERT ON "games"
  REFERENCING NEW TABLE AS new_games FOR EACH STATEMENT EXECUTE FUNCTION "count_organization_games"();
CREATE TRIGGER "games_count_delete" AFTER DELETE ON "games"
  REFERENCING OLD TABLE AS old_games FOR EACH STATEMENT EXECUTE FUNCTION "count_organization_games"();
CREATE TRIGGER "games_count_update" AFTER UPDATE ON "games"
  REFERENCING OLD TABLE AS old_games NEW TABLE AS new_games FOR EACH STATEMENT EXECUTE FUNCTION "count_organization_games"();
CREATE TRIGGER "games_count_truncate" AFTER TRUNCATE ON "games"
  FOR EACH STATEMENT EXECUTE FUNCTION "count_organization_games"();

UPDATE "organizations" o SET "game_count" = (SELECT count(*) FROM "games" g WHERE g."organization_id" = o."id");
