-- The first file (the Makefile's REGRESS): the extension, and
-- regress_error_of(call), which runs SELECT count(*) FROM <call> and returns
-- the one error it raised as "SQLSTATE: message" ('no error' if none). The
-- files that follow call every SQL function with bad input through it.
CREATE EXTENSION uringprobe;
CREATE FUNCTION regress_error_of(call text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE 'SELECT count(*) FROM ' || call;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
