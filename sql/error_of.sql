-- regress_error_of(call): runs SELECT count(*) FROM <call> and returns the
-- one error it raised as "SQLSTATE: message" ('no error' if none). The
-- bad_input_* files that follow call every SQL function through it.
CREATE FUNCTION regress_error_of(call text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE 'SELECT count(*) FROM ' || call;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
